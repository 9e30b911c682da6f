// The API reference over real HTTP: GET /api-docs/openapi.json serves an OpenAPI 3.1 document
// whose operations are exactly the router's routes (method and path template), and GET /api-docs
// the page that browses it. The route list comes from an Api built over its own storage service,
// not from the document, so a route added without its documentation (or documentation left for
// a route removed) fails here. That the answers fit the document's schemas is checked by
// tests/openapi/validate_records.py over the exchanges every API test records.
#include <algorithm>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "api/api.h"
#include "api/api_fixture.h"
#include "api/partial_response.h"
#include "core/strings.h"
#include "service/project/warehouse_registry.h"
#include "service/services.h"
#include "storage/metadata_store.h"
#include "support/temp_dir.h"

namespace tessera::testing {
namespace {

using Operation = std::pair<std::string, std::string>;  // method, path template

// An Api wired to services over an empty SQLite storage service, only to list its routes.
class BareApi {
 public:
  BareApi() {
    storage::StoreOptions store_options;
    store_options.url = "sqlite://" + (directory_.path() / "metadata.db").string();
    store_ = storage::MetadataStore::Open(store_options);
    warehouses_ =
        std::make_unique<service::project::WarehouseRegistry>(std::map<std::string, std::string>{});
    service::cube::CubeServiceOptions cube_options;
    cube_options.data_dir = directory_.path();
    services_ = std::make_unique<service::Services>(*store_, service::session::SessionOptions{},
                                                    *warehouses_, cube_options);
    api_ = std::make_unique<api::Api>(*services_, api::ApiOptions{});
  }

  std::set<Operation> Routes() const {
    std::set<Operation> routes;
    for (const http::RouteEntry& route : api_->Routes()) {
      routes.emplace(route.method, route.path_template);
    }
    return routes;
  }

  // The router's `fields` dialect of each route, named as the document names its parameter.
  std::map<Operation, std::string> FieldsDialects() const {
    std::map<Operation, std::string> dialects;
    for (const http::RouteEntry& route : api_->Routes()) {
      dialects[{route.method, route.path_template}] =
          std::string(api::FieldsDialectName(api_->FieldsDialectOf(route)));
    }
    return dialects;
  }

 private:
  TempDir directory_;
  std::unique_ptr<storage::MetadataStore> store_;
  std::unique_ptr<service::project::WarehouseRegistry> warehouses_;
  std::unique_ptr<service::Services> services_;
  std::unique_ptr<api::Api> api_;
};

std::set<Operation> DocumentedOperations(const Json& document) {
  static const std::set<std::string> kMethods = {"get", "head", "post", "put", "patch", "delete"};
  std::set<Operation> operations;
  for (const auto& [path, item] : document.at("paths").items()) {
    for (const auto& [key, operation] : item.items()) {
      if (kMethods.contains(key)) operations.emplace(ToUpper(key), path);
    }
  }
  return operations;
}

// The document's `fields` parameter of each operation: the name of the shared parameter it
// refers to (#/components/parameters/<name>), "inline" for one of its own, "none" without one.
std::map<Operation, std::string> DocumentedFieldsDialects(const Json& document) {
  static const std::set<std::string> kMethods = {"get", "head", "post", "put", "patch", "delete"};
  const Json& shared = document.at("components").at("parameters");
  std::map<Operation, std::string> dialects;
  for (const auto& [path, item] : document.at("paths").items()) {
    for (const auto& [key, operation] : item.items()) {
      if (!kMethods.contains(key)) continue;
      std::string dialect = "none";
      for (const Json& parameter : operation.value("parameters", Json::array())) {
        if (!parameter.contains("$ref")) {
          if (parameter.value("name", "") == "fields") dialect = "inline";
          continue;
        }
        const std::string ref = parameter.at("$ref").get<std::string>();
        const std::string name = ref.substr(ref.rfind('/') + 1);
        if (shared.contains(name) && shared.at(name).value("name", "") == "fields") {
          dialect = name == "fields" ? "rootFields" : name;
        }
      }
      dialects[{ToUpper(key), path}] = dialect;
    }
  }
  return dialects;
}

std::string Listed(const std::set<Operation>& operations) {
  std::string text;
  for (const auto& [method, path] : operations) text += "\n  " + method + " " + path;
  return text;
}

class OpenApiDocument : public ApiTest {
 protected:
  Json FetchDocument() {
    http::Response response = client().Get("/api-docs/openapi.json");
    EXPECT_EQ(response.status, 200) << response.body;
    EXPECT_NE(response.headers.Get("Content-Type").value_or("").find("application/json"),
              std::string_view::npos);
    return BodyOf(response);
  }
};

TEST_P(OpenApiDocument, IsOpenApi31WithoutATokenAndNamesTheRootAsItsServer) {
  Json document = FetchDocument();

  EXPECT_EQ(document.value("openapi", ""), "3.1.0");
  EXPECT_EQ(document.at("servers").at(0).value("url", ""), "/");
  for (const char* schema : {"Error", "ObjectId", "InstanceResultV2", "ObjectInfo"}) {
    EXPECT_TRUE(document.at("components").at("schemas").contains(schema)) << schema;
  }
}

TEST_P(OpenApiDocument, DocumentsEveryRouteAndNothingElse) {
  const std::set<Operation> routes = BareApi().Routes();
  const std::set<Operation> documented = DocumentedOperations(FetchDocument());

  std::set<Operation> undocumented, not_routes;
  std::set_difference(routes.begin(), routes.end(), documented.begin(), documented.end(),
                      std::inserter(undocumented, undocumented.end()));
  std::set_difference(documented.begin(), documented.end(), routes.begin(), routes.end(),
                      std::inserter(not_routes, not_routes.end()));
  EXPECT_TRUE(undocumented.empty()) << "routes missing from the document:" << Listed(undocumented);
  EXPECT_TRUE(not_routes.empty()) << "documented operations that are no route:"
                                  << Listed(not_routes);
  EXPECT_GT(routes.size(), 100u);  // the whole API, not an empty router
}

// A client reads the reference to learn what `fields` means where: the general rule, the grid
// exclusions or the dataset object types, or nothing. The router's dialect of each route is the
// truth (api/partial_response.h); the document must name the same one.
TEST_P(OpenApiDocument, NamesTheFieldsDialectTheRouterAppliesToEachRoute) {
  const std::map<Operation, std::string> routed = BareApi().FieldsDialects();
  const std::map<Operation, std::string> documented = DocumentedFieldsDialects(FetchDocument());
  std::string mismatches;
  for (const auto& [operation, dialect] : routed) {
    const auto found = documented.find(operation);
    const std::string in_document = found == documented.end() ? "(undocumented)" : found->second;
    if (in_document != dialect) {
      mismatches += "\n  " + operation.first + " " + operation.second + ": router " + dialect +
                    ", document " + in_document;
    }
  }
  EXPECT_TRUE(mismatches.empty()) << "`fields` dialects that differ:" << mismatches;
  size_t kinds =
      std::set<std::string>{"rootFields", "metricValueExclusions", "datasetObjectTypes", "none"}
          .size();
  std::set<std::string> seen;
  for (const auto& [operation, dialect] : routed) seen.insert(dialect);
  EXPECT_EQ(seen.size(), kinds) << "every dialect is some route's";
}

TEST_P(OpenApiDocument, PageIsHtmlThatLoadsTheDocumentBesideIt) {
  http::Response response = client().Get("/api-docs");

  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.headers.Get("Content-Type").value_or(""), "text/html; charset=utf-8");
  EXPECT_NE(response.body.find("/openapi.json"), std::string::npos);
  EXPECT_EQ(response.body.find("http://"), std::string::npos)
      << "the page loads nothing from elsewhere";
  EXPECT_EQ(response.body.find("https://"), std::string::npos)
      << "the page loads nothing from elsewhere";
}

TEST_P(OpenApiDocument, UnknownPathUnderApiDocsIsTheRoutersNotFound) {
  ExpectError(client().Get("/api-docs/swagger.json"), 404, "ERR004", "HTTP 404 Not Found");
}

class OpenApiUnderContextPath : public ApiTest {
 protected:
  void Configure(app::Config& config) override { config.context_path = "/MicroStrategyLibrary"; }
};

TEST_P(OpenApiUnderContextPath, ServersNameTheContextPathAndThePageIsServedUnderIt) {
  http::Response document = client().Get("/MicroStrategyLibrary/api-docs/openapi.json");
  ASSERT_EQ(document.status, 200) << document.body;
  EXPECT_EQ(BodyOf(document).at("servers").at(0).value("url", ""), "/MicroStrategyLibrary");
  EXPECT_EQ(client().Get("/MicroStrategyLibrary/api-docs").status, 200);
  EXPECT_EQ(client().Get("/api-docs/openapi.json").status, 404);
}

INSTANTIATE_TEST_SUITE_P(Backends, OpenApiDocument, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);
INSTANTIATE_TEST_SUITE_P(Backends, OpenApiUnderContextPath, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
