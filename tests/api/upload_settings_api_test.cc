// The upload settings reach a node started with them: an upload session left unused for longer
// than `uploads.session_ttl_seconds` is forgotten (its next chunk and its publish are refused as
// not found), while a node with the default keeps a session idle for as long.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "api/demo_node_fixture.h"
#include "api/push/push_api.h"
#include "core/base64.h"

namespace tessera::testing {
namespace {

using namespace std::chrono_literals;

class UploadSettings : public DemoNodeTest {
 protected:
  http::Response SendJson(NodeProcess& node, const std::string& method, const std::string& target,
                          const Json& body) {
    http::Headers headers = node.Headers(project_);
    headers.Set("Content-Type", "application/json");
    return node.client().Send(method, target, headers, body.dump());
  }

  // A one-table dataset and an upload session over it; its path.
  std::string OpenSessionOnANewDataset(NodeProcess& node, const std::string& name) {
    auto created = SendJson(node, "POST", "/api/datasets/models", StoreAmountModel(name));
    EXPECT_EQ(created.status, 200) << created.body;
    const std::string path =
        "/api/datasets/" + BodyOf(created)["id"].get<std::string>() + "/uploadSessions";
    auto opened =
        SendJson(node, "POST", path, {{"tables", {{{"name", "t"}, {"updatePolicy", "REPLACE"}}}}});
    EXPECT_EQ(opened.status, 200) << opened.body;
    return path + "/" + BodyOf(opened)["uploadSessionId"].get<std::string>();
  }

  http::Response PutChunk(NodeProcess& node, const std::string& session_path, int index) {
    const Json rows = Json::array({Json::array({index, 10.5 * index})});
    return SendJson(node, "PUT", session_path,
                    {{"tableName", "t"}, {"index", index}, {"data", EncodeBase64(rows.dump())}});
  }
};

TEST_P(UploadSettings, ASessionUnusedForLongerThanTheConfiguredTtlIsForgotten) {
  {
    NodeProcess node(Settings({"TESSERA_UPLOAD_SESSION_TTL_SECONDS=1"}));
    node.Start();
    const std::string session = OpenSessionOnANewDataset(node, "Short-lived uploads");
    EXPECT_EQ(PutChunk(node, session, 1).status, 200);
    std::this_thread::sleep_for(2500ms);
    for (const http::Response& refused :
         {PutChunk(node, session, 2),
          node.client().Send("POST", session + "/publish", node.Headers(project_))}) {
      ExpectError(refused, 404, "ERR004");
      EXPECT_NE(refused.body.find("may have expired"), std::string::npos) << refused.body;
    }
  }
  NodeProcess node(Settings());
  node.Start();
  const std::string session = OpenSessionOnANewDataset(node, "Default uploads");
  EXPECT_EQ(PutChunk(node, session, 1).status, 200);
  std::this_thread::sleep_for(2500ms);
  EXPECT_EQ(PutChunk(node, session, 2).status, 200) << "the default keeps an idle session";
  EXPECT_EQ(node.client().Send("POST", session + "/publish", node.Headers(project_)).status, 200);
}

INSTANTIATE_TEST_SUITE_P(Backends, UploadSettings, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
