#include "model/package/configuration_uses.h"

#include <gtest/gtest.h>

#include "model/object_types.h"

namespace tessera::model::package {
namespace {

constexpr const char* kUser = "AB12CD34EF5647A8B9C0D1E2F3A4B5C6";
constexpr const char* kAnalysts = "1111111111111111111111111111111A";
constexpr const char* kSales = "2222222222222222222222222222222B";
constexpr const char* kAnalystRole = "3333333333333333333333333333333C";
constexpr const char* kOwner = "4444444444444444444444444444444D";

ObjectRecord Record(int type, int subtype, Json definition) {
  ObjectRecord record;
  record.id = kUser;
  record.type = type;
  record.subtype = subtype;
  record.owner_id = kOwner;
  record.acl = {{kOwner, 255, false, false}};
  record.definition = std::move(definition);
  return record;
}

TEST(ConfigurationUses, AUserUsesItsGroupsAndRoles) {
  ObjectRecord user = Record(kTypeUser, kSubtypeUser, Json::parse(R"({
      "username": "jo",
      "memberOf": ["1111111111111111111111111111111a", "2222222222222222222222222222222B"],
      "securityRoles": [{"roleId": "3333333333333333333333333333333C", "projects": ["*"]}]})"));
  EXPECT_EQ(package::ConfigurationUses(user),
            (std::vector<std::string>{kAnalysts, kSales, kAnalystRole}));
}

TEST(ConfigurationUses, AGroupUsesItsParentGroupsAndRoles) {
  ObjectRecord group = Record(kTypeUser, kSubtypeUserGroup, Json::parse(R"({
      "memberOf": ["2222222222222222222222222222222B"],
      "securityRoles": [{"roleId": "3333333333333333333333333333333C", "projects": ["P1"]},
                        {"roleId": "3333333333333333333333333333333C", "projects": ["P2"]}]})"));
  EXPECT_EQ(package::ConfigurationUses(group), (std::vector<std::string>{kSales, kAnalystRole}));
}

TEST(ConfigurationUses, OwnersAndAclTrusteesAreNeverUses) {
  ObjectRecord user = Record(kTypeUser, kSubtypeUser, Json::parse(R"({"username": "jo"})"));
  EXPECT_TRUE(package::ConfigurationUses(user).empty());
}

TEST(ConfigurationUses, SecurityRolesAndOtherTypesUseNothing) {
  EXPECT_TRUE(package::ConfigurationUses(Record(kTypeSecurityRole, kSubtypeSecurityRole,
                                                Json::parse(R"({"privileges": [1, 2]})")))
                  .empty());
  EXPECT_TRUE(package::ConfigurationUses(
                  Record(kTypeMetric, 1024,
                         Json::parse(R"({"memberOf": ["2222222222222222222222222222222B"]})")))
                  .empty());
}

TEST(ConfigurationUses, AGroupNeverListsItself) {
  ObjectRecord group = Record(kTypeUser, kSubtypeUserGroup,
                              Json::parse(R"({"memberOf": ["AB12CD34EF5647A8B9C0D1E2F3A4B5C6"]})"));
  EXPECT_TRUE(package::ConfigurationUses(group).empty());
}

}  // namespace
}  // namespace tessera::model::package
