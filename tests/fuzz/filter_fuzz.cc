// Fuzz harness: qualification trees from request bodies -- view filters (engine/view_filter.h),
// metric limits (engine/metric_limits.h), dashboard metric qualifications
// (engine/metric_qualification.h), report filters split by level (engine/qualification.h) -- and
// the instance creation body that carries them (service/instance/instance_request.h).
//
// Input: a first line naming the parser -- "view", "limits", "qualification", "split" or
// "instance" -- then the JSON document. View filters, limits and qualifications are compiled
// against a small dataset built here (the ids of tests/engine/view_filter_test.cc and
// tests/engine/metric_limits_test.cc) and then executed on it; report filters are checked
// against the demo bundle's semantic model; `${name}` in the JSON is the id of the demo object
// of that name.
//
// Contract checked: each parser either succeeds or throws tessera::Error(kInvalidInput or
// kNotSupported); nothing else escapes, and a compiled tree executes without error.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/dataset/instance_requests.h"
#include "core/error.h"
#include "core/json.h"
#include "engine/cube_executor.h"
#include "engine/metric_limits.h"
#include "engine/metric_qualification.h"
#include "engine/qualification.h"
#include "engine/sql/dataset_builder.h"
#include "engine/view_filter.h"
#include "fuzz/fuzz_support.h"
#include "fuzz/request_text.h"
#include "model/bundle/bundle.h"
#include "model/semantic_model.h"
#include "service/instance/instance_request.h"

namespace {

using namespace tessera;
using engine::Cell;
using model::DataType;

const std::string kRegion = "A0000000000000000000000000000001";
const std::string kDay = "A0000000000000000000000000000002";
const std::string kSegment = "A0000000000000000000000000000003";
const std::string kHidden = "A0000000000000000000000000000004";
const std::string kCity = "A0000000000000000000000000000011";
const std::string kRevenue = "B0000000000000000000000000000001";
const std::string kDistinct = "B0000000000000000000000000000002";
const std::string kCityRevenue = "B0000000000000000000000000000011";
const std::string kUnits = "B0000000000000000000000000000012";

engine::sql::MetricSpec Metric(const std::string& id, const std::string& name) {
  engine::sql::MetricSpec metric;
  metric.id = id;
  metric.name = name;
  return metric;
}

std::shared_ptr<const engine::Dataset> BuildDataset() {
  engine::sql::MetricSpec distinct = Metric(kDistinct, "Hidden count");
  distinct.function = model::AggregateFunction::kCountDistinct;
  distinct.counted_attribute_id = kHidden;
  engine::sql::DatasetBuilder builder(
      {{kRegion, "Region", {{"ID", DataType::kInteger}, {"DESC", DataType::kText}}},
       {kDay, "Day", {{"ID", DataType::kDate}}},
       {kSegment, "Segment", {{"ID", DataType::kText}}},
       {kHidden, "Hidden", {{"ID", DataType::kInteger}}, true},
       {kCity, "City", {{"ID", DataType::kInteger}}}},
      {Metric(kRevenue, "Revenue"), distinct, Metric(kCityRevenue, "City revenue"),
       Metric(kUnits, "Units")});
  const char* regions[] = {"North", "south", "Ünïcødé East", "東京 West", "Central"};
  const char* segments[] = {"Consumer", "Corporate", "Government"};
  uint32_t state = 17;
  auto next = [&state] { return state = state * 1103515245u + 12345u, state >> 8; };
  for (int i = 0; i < 300; ++i) {
    const int64_t region = 1 + next() % 5;
    char day[16];
    std::snprintf(day, sizeof day, "2024-01-%02u", 1 + next() % 28);
    const Cell revenue =
        next() % 10 ? Cell(static_cast<double>(next() % 200000) / 100 - 300) : Cell();
    builder.AddRow({Cell(region), Cell(std::string(regions[region - 1])), Cell(std::string(day)),
                    Cell(std::string(segments[next() % 3])), Cell(int64_t(next() % 7)),
                    Cell(int64_t(next() % 20)), revenue, Cell(static_cast<double>(next() % 100)),
                    Cell(1.0)});
  }
  return std::make_shared<const engine::Dataset>(builder.Finish());
}

const std::shared_ptr<const engine::Dataset>& TheDataset() {
  static const std::shared_ptr<const engine::Dataset> dataset = BuildDataset();
  return dataset;
}

// The demo bundle's semantic model, and its objects' ids by name for ${name} in inputs.
struct Demo {
  model::SemanticModel semantic;
  fuzz::Names names;
};

const Demo& TheDemo() {
  static const Demo demo = [] {
    std::vector<model::ObjectRecord> records;
    fuzz::Names names;
    for (auto& object : model::bundle::ReadBundle(TESSERA_SOURCE_DIR "/demo/tutorial").objects) {
      names.emplace(object.record.name, object.record.id);
      records.push_back(std::move(object.record));
    }
    return Demo{model::SemanticModel::Build(records), std::move(names)};
  }();
  return demo;
}

// Region and City, with the three metrics that have a value per row, in dataset order.
engine::CubeQuery GridQuery() {
  engine::CubeQuery query;
  query.attributes = {0, 4};
  int column = 0;
  for (const std::string& id : {kRevenue, kDistinct, kCityRevenue, kUnits}) {
    engine::MetricRequest metric;
    metric.id = id;
    metric.name = id;
    metric.column = column++;
    if (id != kDistinct) query.metrics.push_back(std::move(metric));
  }
  return query;
}

const std::vector<std::string>& GridMetricIds() {
  static const std::vector<std::string> ids = {kRevenue, kCityRevenue, kUnits};
  return ids;
}

void Execute(const engine::CubeQuery& query) {
  const engine::ResultSet result = engine::ExecuteCubeQuery(TheDataset(), query);
  if (result.row_count > TheDataset()->row_count()) {
    fuzz::Finding("a filtered grid has more rows than the dataset",
                  std::to_string(result.row_count));
  }
}

void RunViewFilter(const Json& tree) {
  engine::CubeQuery query = GridQuery();
  query.filter = engine::CompileViewFilter(*TheDataset(), tree);
  Execute(query);
}

void RunMetricLimits(const Json& limits) {
  engine::CubeQuery query = GridQuery();
  query.limit_filter = engine::CompileMetricLimits(limits, GridMetricIds());
  Execute(query);
}

void RunMetricQualification(const Json& expression) {
  engine::CubeQuery query = GridQuery();
  query.group_filter = engine::CompileMetricQualification(expression, GridMetricIds());
  Execute(query);
}

void RunSplit(const Json& tree) {
  (void)engine::MetricsInQualification(tree);
  const engine::SplitQualification split = engine::SplitByLevel(TheDemo().semantic, tree);
  // Each part is a qualification of its own level: checking it again must agree.
  if (!split.rows.is_null()) engine::SplitByLevel(TheDemo().semantic, split.rows);
  if (!split.groups.is_null()) engine::SplitByLevel(TheDemo().semantic, split.groups);
}

void RunInstanceRequest(const Json& body) {
  const service::instance::InstanceRequest request = api::dataset::ParseInstanceRequest(body);
  RunViewFilter(request.view_filter);
  RunMetricLimits(request.metric_limits);
}

void Run(std::string_view parser, const Json& document) {
  if (parser == "view") return RunViewFilter(document);
  if (parser == "limits") return RunMetricLimits(document);
  if (parser == "qualification") return RunMetricQualification(document);
  if (parser == "split") return RunSplit(document);
  if (parser == "instance") return RunInstanceRequest(document);
}

bool IsRequestError(ErrorCode code) {
  return code == ErrorCode::kInvalidInput || code == ErrorCode::kNotSupported ||
         code == ErrorCode::kMissingField;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  TheDataset();
  TheDemo();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  if (newline == std::string_view::npos) return 0;
  const std::string_view parser = input.substr(0, newline);
  Json document;
  try {
    document = ParseJson(fuzz::SubstituteNames(input.substr(newline + 1), TheDemo().names));
  } catch (const Error&) {
    return 0;  // not JSON: the API answers 400 before any of these parsers runs
  }
  try {
    Run(parser, document);
  } catch (const Error& error) {
    if (!IsRequestError(error.code())) {
      fuzz::Finding("a qualification parser threw an error that is not the request's",
                    std::string(parser) + ": " + error.what());
    }
  }
  return 0;
}
