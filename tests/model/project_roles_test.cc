// Project links of users and groups (model/directory.h): the roles a definition grants in one
// project, and the target definition with those links replaced by the source's.
#include <gtest/gtest.h>

#include "model/directory.h"

namespace tessera::model {
namespace {

Json Grants(const Json& grants) { return {{"username", "ana"}, {"securityRoles", grants}}; }

TEST(ProjectRoles, AreTheRolesGrantedByNamingTheProject) {
  Json user = Grants({{{"roleId", "R1"}, {"projects", {"P", "Q"}}},
                      {{"roleId", "R2"}, {"projects", {"*"}}},
                      {{"roleId", "R3"}, {"projects", {"Q"}}},
                      {{"roleId", "R1"}, {"projects", {"P"}}}});
  EXPECT_EQ(ProjectRoleIds(user, "P"), std::vector<std::string>({"R1"}));
  EXPECT_EQ(ProjectRoleIds(user, "Q"), std::vector<std::string>({"R1", "R3"}));
  EXPECT_TRUE(ProjectRoleIds(user, "Z").empty());
  EXPECT_TRUE(ProjectRoleIds(Json::object(), "P").empty());
}

TEST(ProjectRoles, ReplaceOnlyTheTargetProjectsLinksAndKeepEverythingElse) {
  Json target = Grants({{{"roleId", "R1"}, {"projects", {"T", "Other"}}},
                        {{"roleId", "R4"}, {"projects", {"T"}}},
                        {{"roleId", "R2"}, {"projects", {"*"}}}});
  target["passwordHash"] = "kept";
  Json source = Grants({{{"roleId", "R3"}, {"projects", {"S"}}},
                        {{"roleId", "R2"}, {"projects", {"S"}}},
                        {{"roleId", "R5"}, {"projects", {"Elsewhere"}}}});

  Json merged = WithProjectRoles(target, source, "S", "T");

  EXPECT_EQ(merged["passwordHash"], "kept");
  EXPECT_EQ(merged["username"], "ana");
  EXPECT_EQ(merged["securityRoles"], Json::parse(R"([{"roleId": "R1", "projects": ["Other"]},
                            {"roleId": "R2", "projects": ["*"]},
                            {"roleId": "R3", "projects": ["T"]},
                            {"roleId": "R2", "projects": ["T"]}])"));
  EXPECT_EQ(ProjectRoleIds(merged, "T"), std::vector<std::string>({"R3", "R2"}));
}

TEST(ProjectRoles, ASourceWithoutLinksRemovesTheTargetsLinks) {
  Json target = Grants({{{"roleId", "R1"}, {"projects", {"T"}}}});
  Json merged = WithProjectRoles(target, Grants(Json::array()), "S", "T");
  EXPECT_EQ(merged["securityRoles"], Json::array());
}

}  // namespace
}  // namespace tessera::model
