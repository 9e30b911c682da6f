// tests/api/push/push_api.h
//
// What tests of the push API share: the demo node of DemoApi plus the calls of an upload, made over
// HTTP the way the Python client makes them, and the grid of a pushed dataset.
#pragma once

#include <chrono>
#include <string>

#include "api/demo_api.h"
#include "api/grid_rows.h"
#include "core/base64.h"
#include "support/wait.h"

namespace tessera::testing {

// A dataset of one table "t": attribute store (its INTEGER column) and metric amount (DOUBLE).
inline Json StoreAmountModel(const std::string& name) {
  return {
      {"name", name},
      {"tables",
       {{{"name", "t"},
         {"columnHeaders",
          {{{"name", "store"}, {"dataType", "INTEGER"}},
           {{"name", "amount"}, {"dataType", "DOUBLE"}}}}}}},
      {"attributes",
       {{{"name", "store"},
         {"attributeForms",
          {{{"category", "ID"},
            {"expressions", {{{"tableName", "t"}, {"columnName", "store"}}}}}}}}}},
      {"metrics",
       {{{"name", "amount"}, {"expressions", {{{"tableName", "t"}, {"columnName", "amount"}}}}}}}};
}

class PushApi : public DemoApi {
 protected:
  http::Response SendJson(const std::string& method, const std::string& target, const Json& body) {
    http::Headers headers = Headers();
    headers.Set("Content-Type", "application/json");
    return client().Send(method, target, headers, body.dump());
  }

  // POST /api/datasets/models; the dataset's id.
  std::string CreateModel(const Json& model) {
    auto response = SendJson("POST", "/api/datasets/models", model);
    EXPECT_EQ(response.status, 200) << response.body;
    return response.status == 200 ? BodyOf(response)["id"].get<std::string>() : "";
  }

  std::string OpenSession(const std::string& dataset_id, const Json& tables) {
    auto response =
        SendJson("POST", "/api/datasets/" + dataset_id + "/uploadSessions", {{"tables", tables}});
    EXPECT_EQ(response.status, 200) << response.body;
    return response.status == 200 ? BodyOf(response)["uploadSessionId"].get<std::string>() : "";
  }

  http::Response PutChunk(const std::string& dataset_id, const std::string& session_id,
                          const std::string& table, const Json& index, const Json& rows) {
    return SendJson("PUT", SessionPath(dataset_id, session_id),
                    {{"tableName", table}, {"index", index}, {"data", EncodeBase64(rows.dump())}});
  }

  http::Response Publish(const std::string& dataset_id, const std::string& session_id) {
    return client().Send("POST", SessionPath(dataset_id, session_id) + "/publish", Headers());
  }

  // Polls publishStatus as the Python client does, until the integer 1 or an HTTP error; the
  // last response.
  http::Response WaitForPublishStatus(const std::string& dataset_id,
                                      const std::string& session_id) {
    http::Response response;
    EXPECT_TRUE(WaitUntil(
        [&] {
          response = Get(SessionPath(dataset_id, session_id) + "/publishStatus");
          if (response.status != 200) return true;
          Json status = BodyOf(response);
          EXPECT_TRUE(status["status"].is_number_integer()) << response.body;
          EXPECT_EQ(status["uploadSessionId"], session_id);
          return status["status"] == 1;
        },
        std::chrono::minutes(3), "the publish of upload session " + session_id + " ended"));
    return response;
  }

  void PublishAndWait(const std::string& dataset_id, const std::string& session_id) {
    auto published = Publish(dataset_id, session_id);
    ASSERT_EQ(published.status, 200) << published.body;
    auto status = WaitForPublishStatus(dataset_id, session_id);
    ASSERT_EQ(status.status, 200) << status.body;
  }

  // One session over one table, its rows in chunks of `chunk_rows`, published.
  void Upload(const std::string& dataset_id, const std::string& table, const std::string& policy,
              const Json& headers, const Json& rows, size_t chunk_rows = 1000) {
    const std::string session = OpenSession(
        dataset_id,
        Json::array({{{"name", table}, {"updatePolicy", policy}, {"columnHeaders", headers}}}));
    for (size_t begin = 0, index = 1; begin < rows.size(); begin += chunk_rows, ++index) {
      Json chunk = Json::array();
      for (size_t r = begin; r < std::min(rows.size(), begin + chunk_rows); ++r) {
        chunk.push_back(rows[r]);
      }
      auto put = PutChunk(dataset_id, session, table, index, chunk);
      ASSERT_EQ(put.status, 200) << put.body;
    }
    PublishAndWait(dataset_id, session);
  }

  // The id of the attribute or metric named `name` in the cube definition of the dataset.
  std::string ObjectIdIn(const std::string& dataset_id, const std::string& kind,
                         const std::string& name) {
    Json cube = GetJson("/api/v2/cubes/" + dataset_id);
    for (const auto& object : cube["definition"]["availableObjects"][kind]) {
      if (object["name"] == name) return object["id"];
    }
    ADD_FAILURE() << name << " is not among the " << kind << " of " << cube.dump();
    return "";
  }

  // Every row of a cube instance over `attributes` and `metrics` (names).
  std::vector<GridRow> Grid(const std::string& dataset_id,
                            const std::vector<std::string>& attributes,
                            const std::vector<std::string>& metrics) {
    Json requested = {{"attributes", Json::array()}, {"metrics", Json::array()}};
    for (const auto& name : attributes) {
      requested["attributes"].push_back({{"id", ObjectIdIn(dataset_id, "attributes", name)}});
    }
    for (const auto& name : metrics) {
      requested["metrics"].push_back({{"id", ObjectIdIn(dataset_id, "metrics", name)}});
    }
    auto response = SendJson("POST", "/api/v2/cubes/" + dataset_id + "/instances?limit=-1",
                             {{"requestedObjects", requested}});
    EXPECT_EQ(response.status, 200) << response.body;
    return response.status == 200 ? RowsOfV2(BodyOf(response)) : std::vector<GridRow>{};
  }

  static std::string SessionPath(const std::string& dataset_id, const std::string& session_id) {
    return "/api/datasets/" + dataset_id + "/uploadSessions/" + session_id;
  }
};

}  // namespace tessera::testing
