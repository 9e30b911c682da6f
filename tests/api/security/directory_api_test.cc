// Users, user groups and security roles as the Python client reads them: listings with paging
// and totals, a user's login as its abbreviation, memberships, role privileges and members, and
// who may read what.
#include <set>

#include "api/api_fixture.h"

namespace tessera::testing {
namespace {

class DirectoryApi : public ApiTest {
 protected:
  void SetUp() override {
    ApiTest::SetUp();
    if (IsSkipped()) return;
    project_ = CreateProject("Tutorial");
    admin_ = client().Login();
  }

  Json GetJson(const std::string& target, const std::string& token = "") {
    auto response = client().Get(target, AuthHeaders(token.empty() ? admin_ : token));
    EXPECT_EQ(response.status, 200) << target << ": " << response.body;
    return BodyOf(response);
  }

  static std::set<std::string> Names(const Json& items) {
    std::set<std::string> names;
    for (const auto& item : items) names.insert(item["name"].get<std::string>());
    return names;
  }

  std::string project_, admin_;
};

TEST_P(DirectoryApi, UsersListWithTheirLoginAsAbbreviationAndATotal) {
  CreateUser("ivan", "pw", {{"fullName", "Ivan Petrov"}});
  CreateUser("irene", "pw", {{"fullName", "Irene Adler"}});
  CreateUser("bob", "pw");

  auto response = client().Get("/api/users?nameBegins=i&offset=0&limit=1", AuthHeaders(admin_));
  ASSERT_EQ(response.status, 200) << response.body;
  EXPECT_EQ(response.headers.Get("X-MSTR-Total-Count"), "2");
  Json page = BodyOf(response);
  ASSERT_EQ(page.size(), 1u);
  EXPECT_EQ(page[0]["name"], "Irene Adler");  // by name
  EXPECT_EQ(page[0]["abbreviation"], "irene");
  EXPECT_EQ(page[0]["username"], "irene");
  EXPECT_EQ(page[0]["type"], 34);
  EXPECT_EQ(page[0]["subtype"], 8704);

  Json by_login = GetJson("/api/users?abbreviationBegins=BO");
  ASSERT_EQ(by_login.size(), 1u);
  EXPECT_EQ(by_login[0]["abbreviation"], "bob");
  EXPECT_EQ(Names(GetJson("/api/users?limit=-1")),
            (std::set<std::string>{"Administrator", "Irene Adler", "Ivan Petrov", "bob Tester"}));
}

TEST_P(DirectoryApi, EveryoneHoldsEveryUserPagedWithATotal) {
  CreateUser("ann", "pw");
  CreateUser("ben", "pw");
  const std::string members = std::string("/api/usergroups/") + kEveryoneGroupId + "/members";
  auto first = client().Get(members + "?offset=0&limit=2", AuthHeaders(admin_));
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(first.headers.Get("X-MSTR-Total-Count"), "3");
  Json all = GetJson(members + "?includeAccess=False&offset=0&limit=-1");
  EXPECT_EQ(Names(all), (std::set<std::string>{"Administrator", "ann Tester", "ben Tester"}));
  for (const auto& user : all) {
    EXPECT_EQ(user["subtype"], 8704);
    ASSERT_FALSE(user["acl"].empty());
    EXPECT_EQ(user["acl"][0]["trusteeName"], "Everyone");
  }
}

TEST_P(DirectoryApi, AUserShowsItsGroupsAndTheGroupsListThem) {
  std::string id = CreateUser("carol", "pw");
  Json user = GetJson("/api/users/" + id);
  EXPECT_EQ(user["abbreviation"], "carol");
  EXPECT_EQ(user["enabled"], true);
  ASSERT_EQ(user["memberships"].size(), 1u);
  EXPECT_EQ(user["memberships"][0]["id"], kEveryoneGroupId);
  EXPECT_EQ(user["memberships"][0]["name"], "Everyone");
  EXPECT_EQ(GetJson("/api/users/" + id + "/memberships")[0]["name"], "Everyone");

  auto groups = client().Get("/api/usergroups/?offset=0&limit=1000", AuthHeaders(admin_));
  ASSERT_EQ(groups.status, 200) << groups.body;
  EXPECT_EQ(groups.headers.Get("X-MSTR-Total-Count"), "2");
  EXPECT_EQ(Names(BodyOf(groups)), (std::set<std::string>{"Everyone", "Public / Guest"}));
  Json everyone = GetJson("/api/usergroups?nameBegins=ever");
  ASSERT_EQ(everyone.size(), 1u);
  EXPECT_EQ(everyone[0]["subtype"], 8705);
  EXPECT_EQ(GetJson(std::string("/api/usergroups/") + kEveryoneGroupId)["name"], "Everyone");
}

TEST_P(DirectoryApi, SecurityRolesNameTheirPrivilegesAndMembersPerProject) {
  Json roles = GetJson("/api/securityRoles");
  std::string admin_role;
  for (const auto& role : roles) {
    if (role["name"] == "System Administrator") admin_role = role["id"];
    for (const auto& privilege : role["privileges"]) {
      EXPECT_TRUE(privilege["id"].is_number_integer()) << role;
      EXPECT_FALSE(privilege.value("name", "").empty()) << role;
    }
  }
  ASSERT_FALSE(admin_role.empty()) << roles;
  Json role = GetJson("/api/securityRoles/" + admin_role);
  EXPECT_EQ(role["type"], 44);
  bool names_users_administration = false;
  for (const auto& privilege : role["privileges"]) {
    names_users_administration |= privilege["id"] == 293;
  }
  EXPECT_TRUE(names_users_administration);
  ASSERT_EQ(role["projects"].size(), 1u);
  EXPECT_EQ(role["projects"][0]["id"], project_);
  EXPECT_EQ(role["projects"][0]["members"][0]["id"], kAdministratorId);
  EXPECT_EQ(role["projects"][0]["members"][0]["subType"], 8704);
  ExpectError(
      client().Get("/api/securityRoles/0123456789ABCDEF0123456789ABCDEF", AuthHeaders(admin_)), 404,
      "ERR004");
}

TEST_P(DirectoryApi, OthersRecordsNeedAdministerUsersButYourOwnDoesNot) {
  std::string dave = CreateUser("dave", "pw");
  std::string erin = CreateUser("erin", "pw");
  std::string token = client().Login("dave", "pw");
  EXPECT_EQ(GetJson("/api/users/" + dave, token)["abbreviation"], "dave");
  ExpectError(client().Get("/api/users/" + erin, AuthHeaders(token)), 403, "ERR014");
  ExpectError(client().Get(std::string("/api/users/") + kAdministratorId, AuthHeaders(token)), 403,
              "ERR014");
  ExpectError(client().Get("/api/users", AuthHeaders(token)), 403, "ERR014");
  ExpectError(client().Get(std::string("/api/usergroups/") + kEveryoneGroupId + "/members",
                           AuthHeaders(token)),
              403, "ERR014");
}

TEST_P(DirectoryApi, BadListingParametersAre400) {
  ExpectError(client().Get("/api/users?id=nope", AuthHeaders(admin_)), 400, "ERR006");
  ExpectError(client().Get("/api/users?limit=-5", AuthHeaders(admin_)), 400, "ERR006");
  ExpectError(client().Get("/api/usergroups/0123456789ABCDEF0123456789ABCDEF", AuthHeaders(admin_)),
              404, "ERR004");
}

INSTANTIATE_TEST_SUITE_P(Backends, DirectoryApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
