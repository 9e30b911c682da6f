// Objects, folders and ACL enforcement on read (spec 01 §8).
#include "api/api_fixture.h"
#include "core/strings.h"

namespace tessera::testing {
namespace {

constexpr const char* kRoot = "D43364C684E34A5F9B2F9AD7108F7828";
constexpr const char* kPublicObjects = "98FE182C2A10427EACE0CD30B6768258";
constexpr const char* kReports = "D3C7D461F69C4610AA6BAA5EF51F4125";
constexpr const char* kEveryone = "C82C6B1011D2894CC0009D9F29718E4F";

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
  Json root = BodyOf(client().Get(std::string("/api/objects/") + kRoot + "?type=8", Admin()));
  EXPECT_EQ(root["name"], "Tutorial");
  EXPECT_EQ(root["subtype"], 2048);
  EXPECT_FALSE(root.contains("ancestors"));

  Json reports = BodyOf(client().Get(std::string("/api/objects/") + kReports + "?type=8", Admin()));
  EXPECT_EQ(reports["name"], "Reports");
  ASSERT_EQ(reports["ancestors"].size(), 2u);
  EXPECT_EQ(reports["ancestors"][0], Json({{"name", "Tutorial"}, {"id", kRoot}, {"level", 2}}));
  EXPECT_EQ(reports["ancestors"][1],
            Json({{"name", "Public Objects"}, {"id", kPublicObjects}, {"level", 1}}));
}

TEST_P(ObjectApi, ObjectLookupErrors) {
  std::string target = std::string("/api/objects/") + kReports;
  ExpectError(client().Get(target, Admin()), 400, "ERR005");              // no type
  ExpectError(client().Get(target + "?type=3", Admin()), 404, "ERR004");  // other type
  ExpectError(client().Get(target + "?type=abc", Admin()), 400, "ERR006");
  auto malformed = client().Get("/api/objects/XYZ?type=8", Admin());
  ExpectError(malformed, 404, "ERR004");
  EXPECT_NE(BodyOf(malformed)["message"], "HTTP 404 Not Found");
  EXPECT_EQ(client().Get("/api/objects/" + ToLower(kReports) + "?type=8", Admin()).status, 200);
}

TEST_P(ObjectApi, TopFoldersAndFolderContentsArePagedWithATotalCount) {
  auto top = client().Get("/api/folders", Admin());
  ASSERT_EQ(top.status, 200);
  std::vector<std::string> names;
  for (const auto& item : BodyOf(top)) names.push_back(item["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"Profiles", "Public Objects", "Schema Objects"}));

  auto all = client().Get(std::string("/api/folders/") + kPublicObjects, Admin());
  ASSERT_EQ(all.status, 200);
  Json items = BodyOf(all);
  ASSERT_EQ(all.headers.Get("X-MSTR-Total-Count"), std::to_string(items.size()));
  auto page =
      client().Get(std::string("/api/folders/") + kPublicObjects + "?offset=2&limit=3", Admin());
  Json paged = BodyOf(page);
  ASSERT_EQ(paged.size(), 3u);
  EXPECT_EQ(paged[0]["id"], items[2]["id"]);
  EXPECT_EQ(page.headers.Get("X-MSTR-Total-Count"), std::to_string(items.size()));
  ExpectError(client().Get(std::string("/api/folders/") + kPublicObjects + "?offset=-1", Admin()),
              400, "ERR006");
  ExpectError(client().Get(std::string("/api/folders/") + kPublicObjects + "?limit=-2", Admin()),
              400, "ERR006");
  ExpectError(client().Get("/api/folders/0123456789ABCDEF0123456789ABCDEF", Admin()), 404,
              "ERR004");
}

TEST_P(ObjectApi, PredefinedFoldersResolveByTypeIncludingPersonalOnes) {
  std::string sales = CreateFolder("Sales", kReports);
  auto shared = client().Get("/api/folders/preDefined/7?offset=0&limit=1000", Admin());
  ASSERT_EQ(shared.status, 200);
  EXPECT_EQ(shared.headers.Get("X-MSTR-Total-Count"), "1");
  EXPECT_EQ(BodyOf(shared)[0]["id"], sales);

  EXPECT_EQ(BodyOf(client().Get("/api/folders/preDefined/7/id", Admin()))["id"], kReports);
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
  CreateFolder("Finance", kReports);
  ExpectError(
      client().PostJson("/api/folders", {{"name", "finance"}, {"parent", kReports}}, Admin()), 409,
      "ERR015");
  ExpectError(client().PostJson("/api/folders", {{"name", "X"}}, Admin()), 400, "ERR007");
  ExpectError(client().PostJson("/api/folders", {{"name", 5}, {"parent", kReports}}, Admin()), 400,
              "ERR006");
  ExpectError(
      client().PostJson("/api/folders",
                        {{"name", "X"}, {"parent", "0123456789ABCDEF0123456789ABCDEF"}}, Admin()),
      404, "ERR004");
}

TEST_P(ObjectApi, UpdateChangesNameAndVersionAndDeleteRefusesNonEmptyFolders) {
  std::string parent = CreateFolder("Parent", kReports);
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
  ExpectError(client().Send("DELETE", std::string("/api/objects/") + kReports + "?type=8", Admin()),
              400, "ERR006");
  EXPECT_EQ(client().Send("DELETE", "/api/objects/" + child + "?type=8", Admin()).status, 204);
  EXPECT_EQ(client().Send("DELETE", "/api/folders/" + parent, Admin()).status, 204);
  ExpectError(client().Get("/api/objects/" + parent + "?type=8", Admin()), 404, "ERR004");
}

TEST_P(ObjectApi, AclDeniesReadToOthersButNotToTheOwnerOrAdministrator) {
  CreateUser("heidi", "pw");
  std::string heidi = client().Login("heidi", "pw");
  std::string secret = CreateFolder("Secret", kReports);
  std::string open = CreateFolder("Open", kReports);
  auto changed = PutJson("/api/objects/" + secret + "/acl?type=8",
                         {{"acl", {{{"op", "REMOVE"}, {"trustee", kEveryone}, {"rights", 255}}}}});
  ASSERT_EQ(changed.status, 200) << changed.body;

  ExpectError(client().Get("/api/objects/" + secret + "?type=8", AuthHeaders(heidi, project_)), 403,
              "ERR017");
  Json listing =
      BodyOf(client().Get(std::string("/api/folders/") + kReports, AuthHeaders(heidi, project_)));
  ASSERT_EQ(listing.size(), 1u);
  EXPECT_EQ(listing[0]["id"], open);
  EXPECT_EQ(listing[0]["acg"], 197);
  Json found =
      BodyOf(client().Get("/api/searches/results?name=Secret", AuthHeaders(heidi, project_)));
  EXPECT_EQ(found["totalItems"], 0);

  EXPECT_EQ(client().Get("/api/objects/" + secret + "?type=8", Admin()).status, 200);
  ExpectError(client().PostJson("/api/folders", {{"name", "Mine"}, {"parent", kReports}},
                                AuthHeaders(heidi, project_)),
              403, "ERR017");
}

TEST_P(ObjectApi, AclChangesAreValidated) {
  std::string folder = CreateFolder("Guarded", kReports);
  std::string target = "/api/objects/" + folder + "/acl?type=8";
  ExpectError(PutJson(target, {{"acl", {{{"op", "FLIP"}, {"trustee", kEveryone}, {"rights", 1}}}}}),
              400, "ERR006");
  ExpectError(
      PutJson(target, {{"acl", {{{"op", "ADD"}, {"trustee", kEveryone}, {"rights", 999}}}}}), 400,
      "ERR006");
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
