#include "model/rights.h"

#include <gtest/gtest.h>

namespace tessera::model {
namespace {

ObjectRecord ObjectOwnedBy(std::string owner, std::vector<AclEntry> acl) {
  ObjectRecord object;
  object.owner_id = std::move(owner);
  object.acl = std::move(acl);
  return object;
}

TEST(EffectiveRights, OwnerHasFullControlWhateverTheAcl) {
  auto object = ObjectOwnedBy("U1", {{"U1", kRightRead, true, false}});
  EXPECT_EQ(EffectiveRights(object, {"U1", {}}), kRightsFullControl);
}

TEST(EffectiveRights, GrantsOfUserAndGroupsAddUp) {
  auto object = ObjectOwnedBy("OWNER", {{"U1", kRightBrowse, false, false},
                                        {"G1", kRightRead | kRightExecute, false, false},
                                        {"G2", kRightWrite, false, false}});
  EXPECT_EQ(EffectiveRights(object, {"U1", {"G1"}}), kRightBrowse | kRightRead | kRightExecute);
  EXPECT_EQ(EffectiveRights(object, {"U2", {}}), 0);
}

TEST(EffectiveRights, ADenyWinsOverAnyGrant) {
  auto object = ObjectOwnedBy("OWNER", {{"G1", kRightsFullControl, false, false},
                                        {"U1", kRightWrite | kRightDelete, true, false}});
  EXPECT_EQ(EffectiveRights(object, {"U1", {"G1"}}),
            kRightsFullControl & ~(kRightWrite | kRightDelete));
}

TEST(InheritedAcl, KeepsOnlyInheritableEntries) {
  auto folder =
      ObjectOwnedBy("OWNER", {{"G1", kRightsView, false, true}, {"G2", kRightWrite, false, false}});
  auto inherited = InheritedAcl(folder);
  ASSERT_EQ(inherited.size(), 1u);
  EXPECT_EQ(inherited[0].trustee_id, "G1");
}

}  // namespace
}  // namespace tessera::model
