#include "model/well_known.h"

#include <gtest/gtest.h>

#include <set>

namespace tessera::model {
namespace {

TEST(ProjectFolderTree, ParentsComeBeforeChildrenAndIdsAreUnique) {
  std::set<int> seen_types;
  std::set<std::string> ids;
  for (const auto& folder : ProjectFolderTree()) {
    if (folder.parent_folder_type != 0) {
      EXPECT_TRUE(seen_types.count(folder.parent_folder_type));
    }
    seen_types.insert(folder.folder_type);
    EXPECT_TRUE(ids.insert(PredefinedFolderId(folder.folder_type)).second);
  }
}

TEST(ProjectFolderTree, UsesThePublicWellKnownIds) {
  EXPECT_EQ(PredefinedFolderId(kFolderTypeRoot), "D43364C684E34A5F9B2F9AD7108F7828");
  EXPECT_EQ(PredefinedFolderId(kFolderTypePublicObjects), "98FE182C2A10427EACE0CD30B6768258");
  EXPECT_EQ(PredefinedFolderId(kFolderTypeSharedReports), "D3C7D461F69C4610AA6BAA5EF51F4125");
  EXPECT_EQ(FindPredefinedFolder(kFolderTypeSharedReports)->name, "Reports");
}

TEST(PersonalFolders, DifferPerUserAndPerType) {
  EXPECT_NE(PersonalFolderId("A", kFolderTypeMyReports),
            PersonalFolderId("B", kFolderTypeMyReports));
  EXPECT_NE(PersonalFolderId("A", kFolderTypeMyReports),
            PersonalFolderId("A", kFolderTypeMyAnswers));
}

}  // namespace
}  // namespace tessera::model
