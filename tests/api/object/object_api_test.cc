// Objects, folders and ACL enforcement on read.
#include <map>
#include <set>

#include "api/api_fixture.h"
#include "core/strings.h"

namespace tessera::testing {
namespace {

class ObjectApi : public ApiTest {
 protected:
  void SetUp() override {
    ApiTest::SetUp();
    if (IsSkipped()) return;
    project_ = CreateProject("Tutorial");
    token_ = client().Login();
  }

  http::Headers Admin() { return AuthHeaders(token_, project_); }

  std::string CreateFolder(const std::string& name, const std::string& parent,
                           const std::string& token = "") {
    auto response = client().PostJson("/api/folders", {{"name", name}, {"parent", parent}},
                                      AuthHeaders(token.empty() ? token_ : token, project_));
    EXPECT_EQ(response.status, 201) << response.body;
    return BodyOf(response).value("id", "");
  }

  http::Response PutJson(const std::string& target, const Json& body) {
    http::Headers headers = Admin();
    headers.Set("Content-Type", "application/json");
    return client().Send("PUT", target, headers, DumpJson(body));
  }

  std::string project_, token_;
};

TEST_P(ObjectApi, RootFolderIsNamedAfterTheProjectAndReportsHasAncestors) {
  Json root =
      BodyOf(client().Get(std::string("/api/objects/") + kRootFolderId + "?type=8", Admin()));
  EXPECT_EQ(root["name"], "Tutorial");
  EXPECT_EQ(root["subtype"], 2048);
  EXPECT_FALSE(root.contains("ancestors"));

  Json reports =
      BodyOf(client().Get(std::string("/api/objects/") + kReportsFolderId + "?type=8", Admin()));
  EXPECT_EQ(reports["name"], "Reports");
  ASSERT_EQ(reports["ancestors"].size(), 2u);
  EXPECT_EQ(reports["ancestors"][0],
            Json({{"name", "Tutorial"}, {"id", kRootFolderId}, {"level", 2}}));
  EXPECT_EQ(reports["ancestors"][1],
            Json({{"name", "Public Objects"}, {"id", kPublicObjectsFolderId}, {"level", 1}}));
}

TEST_P(ObjectApi, ObjectLookupErrors) {
  std::string target = std::string("/api/objects/") + kReportsFolderId;
  ExpectError(client().Get(target, Admin()), 400, "ERR005");              // no type
  ExpectError(client().Get(target + "?type=3", Admin()), 404, "ERR004");  // other type
  ExpectError(client().Get(target + "?type=abc", Admin()), 400, "ERR006");
  auto malformed = client().Get("/api/objects/XYZ?type=8", Admin());
  ExpectError(malformed, 404, "ERR004");
  EXPECT_NE(BodyOf(malformed)["message"], "HTTP 404 Not Found");
  EXPECT_EQ(client().Get("/api/objects/" + ToLower(kReportsFolderId) + "?type=8", Admin()).status,
            200);
}

TEST_P(ObjectApi, TopFoldersAndFolderContentsArePagedWithATotalCount) {
  auto top = client().Get("/api/folders", Admin());
  ASSERT_EQ(top.status, 200);
  std::vector<std::string> names;
  for (const auto& item : BodyOf(top)) names.push_back(item["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"Profiles", "Public Objects", "Schema Objects"}));

  auto all = client().Get(std::string("/api/folders/") + kPublicObjectsFolderId, Admin());
  ASSERT_EQ(all.status, 200);
  Json items = BodyOf(all);
  ASSERT_EQ(all.headers.Get("X-MSTR-Total-Count"), std::to_string(items.size()));
  auto page = client().Get(
      std::string("/api/folders/") + kPublicObjectsFolderId + "?offset=2&limit=3", Admin());
  Json paged = BodyOf(page);
  ASSERT_EQ(paged.size(), 3u);
  EXPECT_EQ(paged[0]["id"], items[2]["id"]);
  EXPECT_EQ(page.headers.Get("X-MSTR-Total-Count"), std::to_string(items.size()));
  ExpectError(
      client().Get(std::string("/api/folders/") + kPublicObjectsFolderId + "?offset=-1", Admin()),
      400, "ERR006");
  ExpectError(
      client().Get(std::string("/api/folders/") + kPublicObjectsFolderId + "?limit=-2", Admin()),
      400, "ERR006");
  ExpectError(client().Get("/api/folders/0123456789ABCDEF0123456789ABCDEF", Admin()), 404,
              "ERR004");
}

TEST_P(ObjectApi, PredefinedFoldersResolveByTypeIncludingPersonalOnes) {
  std::string sales = CreateFolder("Sales", kReportsFolderId);
  auto shared = client().Get("/api/folders/preDefined/7?offset=0&limit=1000", Admin());
  ASSERT_EQ(shared.status, 200);
  EXPECT_EQ(shared.headers.Get("X-MSTR-Total-Count"), "1");
  EXPECT_EQ(BodyOf(shared)[0]["id"], sales);

  EXPECT_EQ(BodyOf(client().Get("/api/folders/preDefined/7/id", Admin()))["id"], kReportsFolderId);
  auto mine = client().Get("/api/folders/preDefined/20?offset=0&limit=1000", Admin());
  ASSERT_EQ(mine.status, 200);
  EXPECT_EQ(mine.headers.Get("X-MSTR-Total-Count"), "0");

  auto both = client().Get("/api/folders/preDefined?folderType=7,20", Admin());
  ASSERT_EQ(both.status, 200);
  Json folders = BodyOf(both)["preDefined"];
  ASSERT_EQ(folders.size(), 2u);
  EXPECT_EQ(folders[0]["folderType"], 7);
  EXPECT_EQ(folders[1]["name"], "My Reports");
  ExpectError(client().Get("/api/folders/preDefined/12345", Admin()), 404, "ERR004");
}

TEST_P(ObjectApi, FolderCreationValidatesAndRefusesDuplicates) {
  CreateFolder("Finance", kReportsFolderId);
  ExpectError(client().PostJson("/api/folders", {{"name", "finance"}, {"parent", kReportsFolderId}},
                                Admin()),
              409, "ERR015");
  ExpectError(client().PostJson("/api/folders", {{"name", "X"}}, Admin()), 400, "ERR007");
  ExpectError(
      client().PostJson("/api/folders", {{"name", 5}, {"parent", kReportsFolderId}}, Admin()), 400,
      "ERR006");
  ExpectError(
      client().PostJson("/api/folders",
                        {{"name", "X"}, {"parent", "0123456789ABCDEF0123456789ABCDEF"}}, Admin()),
      404, "ERR004");
}

TEST_P(ObjectApi, UpdateChangesNameAndVersionAndDeleteRefusesNonEmptyFolders) {
  std::string parent = CreateFolder("Parent", kReportsFolderId);
  std::string child = CreateFolder("Child", parent);
  Json before = BodyOf(client().Get("/api/objects/" + parent + "?type=8", Admin()));
  auto renamed =
      PutJson("/api/objects/" + parent + "?type=8", {{"name", "Renamed"}, {"hidden", true}});
  ASSERT_EQ(renamed.status, 200) << renamed.body;
  Json after = BodyOf(renamed);
  EXPECT_EQ(after["name"], "Renamed");
  EXPECT_EQ(after["hidden"], true);
  EXPECT_NE(after["version"], before["version"]);

  ExpectError(client().Send("DELETE", "/api/folders/" + parent, Admin()), 400, "ERR006");
  ExpectError(
      client().Send("DELETE", std::string("/api/objects/") + kReportsFolderId + "?type=8", Admin()),
      400, "ERR006");
  EXPECT_EQ(client().Send("DELETE", "/api/objects/" + child + "?type=8", Admin()).status, 204);
  EXPECT_EQ(client().Send("DELETE", "/api/folders/" + parent, Admin()).status, 204);
  ExpectError(client().Get("/api/objects/" + parent + "?type=8", Admin()), 404, "ERR004");
}

TEST_P(ObjectApi, AclDeniesReadToOthersButNotToTheOwnerOrAdministrator) {
  CreateUser("heidi", "pw");
  std::string heidi = client().Login("heidi", "pw");
  std::string secret = CreateFolder("Secret", kReportsFolderId);
  std::string open = CreateFolder("Open", kReportsFolderId);
  auto changed =
      PutJson("/api/objects/" + secret + "/acl?type=8",
              {{"acl", {{{"op", "REMOVE"}, {"trustee", kEveryoneGroupId}, {"rights", 255}}}}});
  ASSERT_EQ(changed.status, 200) << changed.body;

  ExpectError(client().Get("/api/objects/" + secret + "?type=8", AuthHeaders(heidi, project_)), 403,
              "ERR017");
  Json listing = BodyOf(
      client().Get(std::string("/api/folders/") + kReportsFolderId, AuthHeaders(heidi, project_)));
  ASSERT_EQ(listing.size(), 1u);
  EXPECT_EQ(listing[0]["id"], open);
  EXPECT_EQ(listing[0]["acg"], 197);
  Json found =
      BodyOf(client().Get("/api/searches/results?name=Secret", AuthHeaders(heidi, project_)));
  EXPECT_EQ(found["totalItems"], 0);

  EXPECT_EQ(client().Get("/api/objects/" + secret + "?type=8", Admin()).status, 200);
  ExpectError(client().PostJson("/api/folders", {{"name", "Mine"}, {"parent", kReportsFolderId}},
                                AuthHeaders(heidi, project_)),
              403, "ERR017");
}

TEST_P(ObjectApi, AclEntriesNameTheirTrusteesWithTypeAndSubtype) {
  std::string heidi = CreateUser("heidi", "pw");
  std::string folder = CreateFolder("Shared With Heidi", kReportsFolderId);
  auto changed = PutJson("/api/objects/" + folder + "/acl?type=8",
                         {{"acl", {{{"op", "ADD"}, {"trustee", heidi}, {"rights", 197}}}}});
  ASSERT_EQ(changed.status, 200) << changed.body;

  Json acl = BodyOf(client().Get("/api/objects/" + folder + "?type=8", Admin()))["acl"];
  std::map<std::string, Json> by_trustee;
  for (const Json& entry : acl) by_trustee[entry["trusteeId"]] = entry;
  ASSERT_EQ(by_trustee.count(heidi), 1u) << acl;
  ASSERT_EQ(by_trustee.count(std::string(kEveryoneGroupId)), 1u) << acl;
  EXPECT_EQ(by_trustee[heidi]["trusteeName"], "heidi Tester");  // the full name
  EXPECT_EQ(by_trustee[heidi]["trusteeType"], 34);
  EXPECT_EQ(by_trustee[heidi]["trusteeSubtype"], 8704);
  const Json& everyone = by_trustee[std::string(kEveryoneGroupId)];
  EXPECT_EQ(everyone["trusteeName"], "Everyone");
  EXPECT_EQ(everyone["trusteeType"], 34);
  EXPECT_EQ(everyone["trusteeSubtype"], 8705);
  for (const char* key : {"deny", "type", "rights", "inheritable"}) {
    EXPECT_TRUE(everyone.contains(key)) << key;
  }

  Json listed = BodyOf(client().Get(std::string("/api/folders/") + kReportsFolderId, Admin()));
  ASSERT_FALSE(listed.empty());
  for (const Json& item : listed) {
    for (const Json& entry : item["acl"]) EXPECT_TRUE(entry.contains("trusteeName")) << item;
  }
}

TEST_P(ObjectApi, AclChangesSentWithAnObjectUpdateAreAppliedTogether) {
  std::string ruth = CreateUser("ruth", "pw");
  std::string folder = CreateFolder("Renamed With Rights", kReportsFolderId);
  auto changed = PutJson("/api/objects/" + folder + "?type=8", {{"name", "Renamed"},
                                                                {"acl",
                                                                 {{{"op", "ADD"},
                                                                   {"trustee", ruth},
                                                                   {"rights", 197},
                                                                   {"type", 1},
                                                                   {"denied", false},
                                                                   {"inheritable", nullptr}}}}});
  ASSERT_EQ(changed.status, 200) << changed.body;
  Json object = BodyOf(client().Get("/api/objects/" + folder + "?type=8", Admin()));
  EXPECT_EQ(object["name"], "Renamed");
  bool granted = false;
  for (const auto& entry : object["acl"])
    granted |= entry["trusteeId"] == ruth && entry["rights"] == 197;
  EXPECT_TRUE(granted) << object["acl"];

  // A bad entry changes nothing, not even the name sent with it.
  ExpectError(
      PutJson(
          "/api/objects/" + folder + "?type=8",
          {{"name", "Again"},
           {"acl",
            {{{"op", "ADD"}, {"trustee", "0123456789ABCDEF0123456789ABCDEF"}, {"rights", 1}}}}}),
      400, "ERR006");
  EXPECT_EQ(BodyOf(client().Get("/api/objects/" + folder + "?type=8", Admin()))["name"], "Renamed");
}

TEST_P(ObjectApi, MyPersonalObjectsListsTheCallersOwnFolder) {
  const std::string target = "/api/folders/myPersonalObjects?offset=0&limit=1000";
  auto empty = client().Get(target, Admin());
  ASSERT_EQ(empty.status, 200) << empty.body;
  EXPECT_EQ(empty.headers.Get("X-MSTR-Total-Count"), "0");
  const std::string mine =
      BodyOf(client().Get("/api/folders/preDefined/19/id", Admin()))["id"].get<std::string>();
  CreateFolder("Drafts", mine);
  auto listed = client().Get(target, Admin());
  EXPECT_EQ(listed.headers.Get("X-MSTR-Total-Count"), "1");
  EXPECT_EQ(BodyOf(listed)[0]["name"], "Drafts");
}

TEST_P(ObjectApi, WithoutAProjectFoldersAreTheConfigurationOnes) {
  http::Headers no_project = AuthHeaders(token_);
  auto top = client().Get("/api/folders?offset=0&limit=1000", no_project);
  ASSERT_EQ(top.status, 200) << top.body;
  std::map<std::string, std::string> ids;
  for (const auto& folder : BodyOf(top)) ids[folder["name"]] = folder["id"];
  ASSERT_EQ(ids.size(), 3u) << top.body;
  EXPECT_EQ(top.headers.Get("X-MSTR-Total-Count"), "3");
  ASSERT_TRUE(ids.count("Users") && ids.count("User Groups") && ids.count("Security Roles"));
  Json root = BodyOf(client().Get("/api/folders/preDefined/39/id?folderType=39", no_project));
  EXPECT_FALSE(root.value("id", "").empty());

  CreateUser("olga", "pw");
  std::set<std::string> users;
  for (const auto& user : BodyOf(client().Get("/api/folders/" + ids["Users"], no_project))) {
    users.insert(user["name"].get<std::string>());
    EXPECT_EQ(user["subtype"], 8704);
  }
  EXPECT_EQ(users, (std::set<std::string>{"Administrator", "olga Tester"}));
  std::set<std::string> groups;
  for (const auto& group : BodyOf(client().Get("/api/folders/" + ids["User Groups"], no_project))) {
    groups.insert(group["name"].get<std::string>());
  }
  EXPECT_EQ(groups, (std::set<std::string>{"Everyone", "Public / Guest"}));
  // With a project, the project's root folders are listed as before.
  Json project_top = BodyOf(client().Get("/api/folders", Admin()));
  EXPECT_FALSE(project_top.empty());
  EXPECT_NE(project_top[0]["name"], "Users");
}

TEST_P(ObjectApi, SearchByIdFindsWhatTheCallerMayBrowse) {
  std::string visible = CreateFolder("Seen", kReportsFolderId);
  std::string hidden = CreateFolder("Unseen", kReportsFolderId);
  ASSERT_EQ(PutJson("/api/objects/" + hidden + "/acl?type=8",
                    {{"acl", {{{"op", "REMOVE"}, {"trustee", kEveryoneGroupId}, {"rights", 255}}}}})
                .status,
            200);
  CreateUser("sam", "pw");
  std::string sam = client().Login("sam", "pw");
  Json body = {{"projectIdAndObjectIds",
                {{{"projectId", project_},
                  {"objectIds", {visible, hidden, "0123456789ABCDEF0123456789ABCDEF"}}}}}};
  auto response = client().PostJson("/api/searches/objects?includeAncestors=False", body,
                                    AuthHeaders(sam, project_));
  ASSERT_EQ(response.status, 200) << response.body;
  Json result = BodyOf(response)["result"];
  ASSERT_EQ(result.size(), 1u) << result;
  EXPECT_EQ(result[0]["id"], visible);
  EXPECT_EQ(result[0]["projectId"], project_);
  EXPECT_EQ(BodyOf(client().PostJson("/api/searches/objects", body, Admin()))["result"].size(), 2u);
  ExpectError(client().PostJson(
                  "/api/searches/objects",
                  {{"projectIdAndObjectIds", {{{"projectId", project_}, {"objectIds", {"bad"}}}}}},
                  Admin()),
              400, "ERR006");
  ExpectError(client().PostJson("/api/searches/objects", {{"other", 1}}, Admin()), 400, "ERR007");
}

TEST_P(ObjectApi, AclChangesAreValidated) {
  std::string folder = CreateFolder("Guarded", kReportsFolderId);
  std::string target = "/api/objects/" + folder + "/acl?type=8";
  ExpectError(
      PutJson(target, {{"acl", {{{"op", "FLIP"}, {"trustee", kEveryoneGroupId}, {"rights", 1}}}}}),
      400, "ERR006");
  ExpectError(
      PutJson(target, {{"acl", {{{"op", "ADD"}, {"trustee", kEveryoneGroupId}, {"rights", 999}}}}}),
      400, "ERR006");
  ExpectError(
      PutJson(
          target,
          {{"acl",
            {{{"op", "ADD"}, {"trustee", "0123456789ABCDEF0123456789ABCDEF"}, {"rights", 1}}}}}),
      400, "ERR006");
  ExpectError(PutJson(target, {{"nothing", 1}}), 400, "ERR007");
  Json unchanged = BodyOf(client().Get("/api/objects/" + folder + "?type=8", Admin()));
  EXPECT_EQ(unchanged["acl"].size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Backends, ObjectApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
