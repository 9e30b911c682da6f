#include "model/package/import_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace tessera::model::package {
namespace {

struct Entry {
  std::string name;
  int type;
  int subtype;
  int folder_depth = 0;
};

// The names of `entries` in import order (stable for equal keys).
std::vector<std::string> Ordered(package::PackageKind kind, std::vector<Entry> entries) {
  std::stable_sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
    return package::MakeImportOrderKey(kind, a.type, a.subtype, a.folder_depth) <
           package::MakeImportOrderKey(kind, b.type, b.subtype, b.folder_depth);
  });
  std::vector<std::string> names;
  for (const Entry& entry : entries) names.push_back(entry.name);
  return names;
}

TEST(ImportOrder, ProjectPackagesFollowTheSpecTypeOrder) {
  std::vector<Entry> shuffled = {
      {"search", 39, 9984},     {"dashboard", 55, 14081}, {"cube", 3, 776},
      {"template", 2, 512},     {"metric", 4, 1024},      {"prompt", 10, 2560},
      {"custom group", 1, 257}, {"function", 11, 2816},   {"transformation", 43, 11009},
      {"hierarchy", 14, 3587},  {"fact", 13, 3328},       {"attribute", 12, 3072},
      {"column", 26, 6656},     {"table", 15, 3840},      {"folder", 8, 2048, 2},
  };
  EXPECT_EQ(Ordered(package::PackageKind::kProject, shuffled),
            (std::vector<std::string>{"folder", "column", "table", "attribute", "fact", "hierarchy",
                                      "transformation", "function", "custom group", "prompt",
                                      "metric", "template", "cube", "dashboard", "search"}));
}

TEST(ImportOrder, ProjectRanksAreLiteral) {
  EXPECT_EQ(package::ImportRank(package::PackageKind::kProject, 8, 2048), 0);
  EXPECT_EQ(package::ImportRank(package::PackageKind::kProject, 15, 3840), 1);
  EXPECT_EQ(package::ImportRank(package::PackageKind::kProject, 26, 6656), 1);
  EXPECT_EQ(package::ImportRank(package::PackageKind::kProject, 12, 3078), 2);  // smart attribute
  EXPECT_EQ(package::ImportRank(package::PackageKind::kProject, 13, 3328), 3);
  EXPECT_EQ(package::ImportRank(package::PackageKind::kProject, 14, 3585), 4);
  EXPECT_EQ(package::ImportRank(package::PackageKind::kProject, 43, 11009), 5);
  EXPECT_EQ(package::ImportRank(package::PackageKind::kProject, 11, 2816), 6);
  EXPECT_EQ(package::ImportRank(package::PackageKind::kProject, 1, 256), 7);
  EXPECT_EQ(package::ImportRank(package::PackageKind::kProject, 1, 257), 7);
  EXPECT_EQ(package::ImportRank(package::PackageKind::kProject, 10, 2560), 8);
  EXPECT_EQ(package::ImportRank(package::PackageKind::kProject, 4, 1025), 9);
  EXPECT_EQ(package::ImportRank(package::PackageKind::kProject, 2, 512), 10);
  EXPECT_EQ(package::ImportRank(package::PackageKind::kProject, 3, 768), 11);
  EXPECT_EQ(package::ImportRank(package::PackageKind::kProject, 3, 779), 11);
  EXPECT_EQ(package::ImportRank(package::PackageKind::kProject, 55, 14080), 12);
  EXPECT_EQ(package::ImportRank(package::PackageKind::kProject, 55, 14081), 12);
  EXPECT_EQ(package::ImportRank(package::PackageKind::kProject, 58, 14848),
            13);  // security filter: others
  EXPECT_EQ(package::ImportRank(package::PackageKind::kProject, 47, 12032),
            13);  // consolidation: others
}

TEST(ImportOrder, FoldersComeParentFirst) {
  EXPECT_EQ(Ordered(package::PackageKind::kProject, {{"Metrics", 8, 2048, 2},
                                                     {"metric", 4, 1024},
                                                     {"Public Objects", 8, 2048, 1},
                                                     {"Sales", 8, 2048, 3},
                                                     {"root", 8, 2048, 0}}),
            (std::vector<std::string>{"root", "Public Objects", "Metrics", "Sales", "metric"}));
}

TEST(ImportOrder, DepthOrdersOnlyFolders) {
  EXPECT_EQ(package::MakeImportOrderKey(package::PackageKind::kProject, 4, 1024, 7),
            package::MakeImportOrderKey(package::PackageKind::kProject, 4, 1024, 1));
  EXPECT_LT(package::MakeImportOrderKey(package::PackageKind::kProject, 8, 2048, 9),
            package::MakeImportOrderKey(package::PackageKind::kProject, 15, 3840, 0));
}

TEST(ImportOrder, ConfigurationPackagesWriteRolesThenUsersThenGroupsThenTheRest) {
  EXPECT_EQ(Ordered(package::PackageKind::kConfiguration, {{"schedule", 49, 12544},
                                                           {"group", 34, 8705},
                                                           {"user", 34, 8704},
                                                           {"data source", 29, 7424},
                                                           {"role", 44, 11264}}),
            (std::vector<std::string>{"role", "user", "group", "schedule", "data source"}));
}

TEST(ImportOrder, ProjectSecurityPackagesUseTheConfigurationOrder) {
  EXPECT_EQ(package::ImportRank(package::PackageKind::kProjectSecurity, 34, 8704), 1);
  EXPECT_EQ(package::ImportRank(package::PackageKind::kProjectSecurity, 34, 8705), 2);
}

}  // namespace
}  // namespace tessera::model::package
