// bench/cube_queries.cc
//
// The Tessera side of bench/cube-queries.sh. Publishes one Dataset at the fact grain straight
// from the demo warehouse (sales_fact joined to its lookups: one row per order line), translates
// every query of bench/queries.json (its neutral `cube` description) into an
// engine::CubeQuery, runs each once to warm up and then K times on a compute pool of T threads,
// and writes the medians, each query's peak memory and its answer as JSON:
//
//   {rows, threads, publish_ms, scan_ms, aggregate_scan_ms, memory_bytes, raw_bytes,
//    baseline_rss_mib, floor_ms, floor_1thread_ms,
//    queries: [{id, median_ms, runs_ms, peak_rss_mib, peak_above_baseline_mib,
//               result: {columns, rows}}]}
//
// Answer cells are the bench table's values: an attribute's DESC form when it has one (else its
// only form; year as an integer), metrics as doubles, null as null.
//
// The dataset is shaped like a published cube of the demo: attributes with an integer id and a
// name have the forms ID and DESC (so dictionaries are ordered by ID), the date attributes one
// form, their value; the metrics are the sums of units, revenue and cost, metrics sharing their
// values for every other aggregate the queries use, a row count, and one count_distinct per
// attribute a query counts.
//
// The floor loop is the least work any grouped aggregation over every row can do: the sum of one
// double column grouped by one uint8 code column, on one thread and on T.
//
//   bench_cube_queries --warehouse sqlite:///abs/warehouse.db --queries queries.json
//                      --runs 5 --threads 2 --out results.json [--reuse-snapshot FILE]
//
// --reuse-snapshot, for working on query speed: the dataset is read from FILE when it exists
// (publish_ms, scan_ms and aggregate_scan_ms are then absent), else published and written there.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <latch>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/thread_pool.h"
#include "engine/cube_executor.h"
#include "engine/cube_query.h"
#include "engine/dataset_snapshot.h"
#include "engine/sql/dataset_builder.h"
#include "engine/warehouse/warehouse.h"
#include "model/expression.h"

namespace tessera::bench {
namespace {

using Json = nlohmann::json;
using engine::Cell;
using engine::CompareOp;
using engine::CubeQuery;
using engine::Dataset;
using engine::MetricRequest;
using engine::ResultSet;
using engine::RowFilter;
using engine::SortKey;
using model::AggregateFunction;
using model::DataType;

// --- The dataset ----------------------------------------------------------------------------

// One attribute of the bench table and where its forms come from in the demo warehouse.
struct BenchAttribute {
  const char* name;
  const char* id_column;
  DataType id_type;
  const char* desc_column;  // nullptr: the attribute has one form, its value
};

constexpr BenchAttribute kAttributes[] = {
    {"day", "f.day_id", DataType::kDate, nullptr},
    {"month", "m.month_id", DataType::kText, nullptr},
    {"quarter", "q.quarter_id", DataType::kText, nullptr},
    {"year", "q.year_id", DataType::kInteger, nullptr},
    {"region", "r.region_id", DataType::kInteger, "r.region_name"},
    {"country", "co.country_id", DataType::kInteger, "co.country_name"},
    {"city", "ci.city_id", DataType::kInteger, "ci.city_name"},
    {"category", "ca.category_id", DataType::kInteger, "ca.category_name"},
    {"subcategory", "sc.subcategory_id", DataType::kInteger, "sc.subcategory_name"},
    {"item", "i.item_id", DataType::kInteger, "i.item_name"},
    {"customer_segment", "cs.customer_segment_id", DataType::kInteger, "cs.customer_segment_name"},
    {"channel", "ch.channel_id", DataType::kInteger, "ch.channel_name"},
};

// The facts, each read once; every metric on a fact other than its sum shares the sum's values.
constexpr const char* kFacts[] = {"units", "revenue", "cost"};

// The fact table joined to its lookups. On SQLite the joins are CROSS JOINs, which keep the
// written order (sales_fact outermost, each lookup by its primary key), as the engine's own SQL
// does (engine/sql/select_builder.cc): with plain JOINs over all twelve lookups SQLite's planner
// puts the small lookups outside and builds automatic indexes on sales_fact, and the scan of
// 100,000 rows takes minutes instead of half a second.
constexpr const char* kLookupJoins[] = {
    "lu_day d ON d.day_id = f.day_id",
    "lu_month m ON m.month_id = d.month_id",
    "lu_quarter q ON q.quarter_id = m.quarter_id",
    "lu_city ci ON ci.city_id = f.city_id",
    "lu_country co ON co.country_id = ci.country_id",
    "lu_region r ON r.region_id = co.region_id",
    "lu_item i ON i.item_id = f.item_id",
    "lu_subcategory sc ON sc.subcategory_id = i.subcategory_id",
    "lu_category ca ON ca.category_id = sc.category_id",
    "lu_customer cu ON cu.customer_id = f.customer_id",
    "lu_customer_segment cs ON cs.customer_segment_id = cu.customer_segment_id",
    "lu_channel ch ON ch.channel_id = f.channel_id",
};

std::string JoinsText(engine::warehouse::Dialect dialect) {
  const std::string join =
      dialect == engine::warehouse::Dialect::kSqlite ? " CROSS JOIN " : " JOIN ";
  std::string text = " FROM sales_fact f";
  for (const char* lookup : kLookupJoins) text += join + lookup;
  return text;
}

const BenchAttribute* FindAttribute(const std::string& name) {
  for (const auto& attribute : kAttributes) {
    if (name == attribute.name) return &attribute;
  }
  return nullptr;
}

bool IsFact(const std::string& name) {
  return std::find(std::begin(kFacts), std::end(kFacts), name) != std::end(kFacts);
}

AggregateFunction ParseAggregate(const std::string& name) {
  static const std::map<std::string, AggregateFunction> functions = {
      {"sum", AggregateFunction::kSum},     {"avg", AggregateFunction::kAvg},
      {"min", AggregateFunction::kMin},     {"max", AggregateFunction::kMax},
      {"count", AggregateFunction::kCount}, {"count_distinct", AggregateFunction::kCountDistinct}};
  const auto found = functions.find(name);
  if (found == functions.end()) throw std::runtime_error("unknown aggregate '" + name + "'");
  return found->second;
}

// The dataset metric that answers a measure {agg, of}: "sum:revenue", "count:",
// "count_distinct:item".
std::string MetricId(const std::string& aggregate, const std::string& of) {
  return aggregate + ":" + of;
}

std::vector<engine::sql::AttributeSpec> AttributeSpecs() {
  std::vector<engine::sql::AttributeSpec> specs;
  for (const auto& attribute : kAttributes) {
    engine::sql::AttributeSpec spec{attribute.name, attribute.name, {}, false};
    if (attribute.desc_column) {
      spec.forms = {{"ID", attribute.id_type}, {"DESC", DataType::kText}};
    } else {
      spec.forms = {{attribute.name, attribute.id_type}};
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

// The sums of the facts (they take the row's columns), then one metric per other {agg, of} any
// query asks for.
std::vector<engine::sql::MetricSpec> MetricSpecs(const Json& queries) {
  std::vector<engine::sql::MetricSpec> specs;
  std::set<std::string> ids;
  auto add = [&](engine::sql::MetricSpec spec) {
    if (ids.insert(spec.id).second) specs.push_back(std::move(spec));
  };
  for (const char* fact : kFacts) {
    engine::sql::MetricSpec sum;
    sum.id = MetricId("sum", fact);
    sum.name = fact;
    sum.function = AggregateFunction::kSum;
    add(std::move(sum));
  }
  for (const auto& query : queries) {
    for (const auto& measure : query["cube"]["measures"]) {
      if (!measure.contains("agg")) continue;
      const std::string aggregate = measure["agg"].get<std::string>();
      const std::string of = measure.value("of", "");
      engine::sql::MetricSpec spec;
      spec.id = spec.name = MetricId(aggregate, of);
      spec.function = ParseAggregate(aggregate);
      if (spec.function == AggregateFunction::kCount && of.empty()) {
        spec.counts_rows = true;
      } else if (spec.function == AggregateFunction::kCountDistinct && FindAttribute(of)) {
        spec.counted_attribute_id = of;
      } else if (IsFact(of)) {
        spec.shares_values_of = MetricId("sum", of);
      } else {
        throw std::runtime_error(query["id"].get<std::string>() + ": cannot compute " + aggregate +
                                 " of '" + of + "'");
      }
      add(std::move(spec));
    }
  }
  return specs;
}

// The SELECT whose rows are the builder's layout: every attribute's forms, the facts, and a null
// for any further column the builder expects (metrics that read no value of their own). Rows come
// in order_line_id order, as in the peers' table.
std::string SelectText(engine::warehouse::Dialect dialect, size_t column_count) {
  std::string text = "SELECT ";
  size_t columns = 0;
  auto add = [&](const std::string& expression) {
    if (columns++ > 0) text += ", ";
    text += expression;
  };
  for (const auto& attribute : kAttributes) {
    add(attribute.id_column);
    if (attribute.desc_column) add(attribute.desc_column);
  }
  for (const char* fact : kFacts) add(std::string("f.") + fact);
  while (columns < column_count) add("NULL");
  if (columns != column_count) throw std::runtime_error("the dataset needs fewer columns");
  return text + JoinsText(dialect) + " ORDER BY f.order_line_id";
}

// The warehouse's own cost of a result: reads every row, keeps nothing.
class CountingSink : public engine::warehouse::RowSink {
 public:
  void OnColumns(const std::vector<std::string>&) override {}
  void OnRow(const std::vector<engine::warehouse::SqlValue>&) override { ++rows_; }
  size_t rows() const { return rows_; }

 private:
  size_t rows_ = 0;
};

// --- Time and memory ------------------------------------------------------------------------

using Clock = std::chrono::steady_clock;

double MillisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

// A line of /proc/self/status ("VmHWM:", "VmRSS:"), in KiB.
double StatusKib(const std::string& key) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(key + ":", 0) == 0) return std::stod(line.substr(key.size() + 1));
  }
  return 0;
}

double Mib(double kib) { return kib / 1024; }

// Resets VmHWM to the current RSS (Linux: "5" in clear_refs).
void ResetPeakRss() {
  std::ofstream clear_refs("/proc/self/clear_refs");
  clear_refs << "5";
}

// --- Translating the cube descriptions -------------------------------------------------------

// The form whose values are the bench column's: DESC when the attribute has one.
int BenchForm(const Dataset& dataset, int attribute) {
  const int desc = dataset.attribute(attribute).dictionary.FormIndex("DESC");
  return desc >= 0 ? desc : 0;
}

int AttributeIndex(const Dataset& dataset, const std::string& name) {
  const int index = dataset.AttributeIndex(name);
  if (index < 0) throw std::runtime_error("no attribute '" + name + "' in the dataset");
  return index;
}

int MetricIndex(const Dataset& dataset, const std::string& id) {
  const int index = dataset.MetricIndex(id);
  if (index < 0) throw std::runtime_error("no metric '" + id + "' in the dataset");
  return index;
}

Cell CellOf(const Json& value) {
  if (value.is_number_integer()) return Cell(value.get<int64_t>());
  if (value.is_number()) return Cell(value.get<double>());
  if (value.is_string()) return Cell(value.get<std::string>());
  return Cell();
}

CompareOp ParseComparison(const std::string& op) {
  static const std::map<std::string, CompareOp> ops = {
      {">", CompareOp::kGreater}, {">=", CompareOp::kGreaterEqual},
      {"<", CompareOp::kLess},    {"<=", CompareOp::kLessEqual},
      {"=", CompareOp::kEquals},  {"!=", CompareOp::kNotEqual}};
  const auto found = ops.find(op);
  if (found == ops.end()) throw std::runtime_error("unknown comparison '" + op + "'");
  return found->second;
}

std::vector<uint8_t> And(std::vector<uint8_t> a, const std::vector<uint8_t>& b) {
  for (size_t i = 0; i < a.size(); ++i) a[i] = a[i] && b[i];
  return a;
}

// {column, op: range, min, max, min_inclusive, max_inclusive}: on a fact, the row's own value;
// on an attribute, its bench form (dates compare as ISO text).
RowFilter RangeFilter(const Dataset& dataset, const Json& filter) {
  const std::string column = filter["column"].get<std::string>();
  const bool has_min = filter.contains("min") && !filter["min"].is_null();
  const bool has_max = filter.contains("max") && !filter["max"].is_null();
  const CompareOp min_op =
      filter.value("min_inclusive", true) ? CompareOp::kGreaterEqual : CompareOp::kGreater;
  const CompareOp max_op =
      filter.value("max_inclusive", true) ? CompareOp::kLessEqual : CompareOp::kLess;
  if (IsFact(column)) {
    const int metric = MetricIndex(dataset, MetricId("sum", column));
    std::vector<RowFilter> bounds;
    if (has_min) bounds.push_back(RowFilter::Metric(metric, min_op, {filter["min"].get<double>()}));
    if (has_max) bounds.push_back(RowFilter::Metric(metric, max_op, {filter["max"].get<double>()}));
    return RowFilter::Combine(RowFilter::Kind::kAnd, std::move(bounds));
  }
  const int attribute = AttributeIndex(dataset, column);
  const auto& dictionary = dataset.attribute(attribute).dictionary;
  const int form = BenchForm(dataset, attribute);
  std::vector<uint8_t> keep(dictionary.size(), 1);
  if (has_min)
    keep = And(keep, engine::MaskOfForm(dictionary, form, min_op, {CellOf(filter["min"])}));
  if (has_max)
    keep = And(keep, engine::MaskOfForm(dictionary, form, max_op, {CellOf(filter["max"])}));
  return RowFilter::Codes(attribute, std::move(keep));
}

RowFilter ElementFilter(const Dataset& dataset, const Json& filter) {
  const int attribute = AttributeIndex(dataset, filter["attribute"].get<std::string>());
  std::vector<Cell> values;
  for (const auto& value : filter["values"]) values.push_back(CellOf(value));
  return RowFilter::Codes(
      attribute, engine::MaskOfForm(dataset.attribute(attribute).dictionary,
                                    BenchForm(dataset, attribute), CompareOp::kIn, values));
}

CubeQuery TranslateQuery(const Dataset& dataset, const Json& cube) {
  CubeQuery query;
  std::vector<std::string> group_by;
  for (const auto& name : cube["group_by"]) {
    group_by.push_back(name.get<std::string>());
    query.attributes.push_back(AttributeIndex(dataset, group_by.back()));
  }

  std::map<std::string, int> measure_index;  // name -> returned metric index
  for (const auto& measure : cube["measures"]) {
    MetricRequest request;
    request.id = measure["name"].get<std::string>();
    request.name = request.id;
    if (measure.contains("calc")) {
      request.formula = model::ParseArithmetic(measure["calc"].get<std::string>());
    } else {
      request.column = MetricIndex(
          dataset, MetricId(measure["agg"].get<std::string>(), measure.value("of", "")));
    }
    measure_index[request.id] = static_cast<int>(query.metrics.size());
    query.metrics.push_back(std::move(request));
  }

  std::vector<RowFilter> filters;
  for (const auto& filter : cube["filters"]) {
    const std::string op = filter["op"].get<std::string>();
    if (op == "in") {
      filters.push_back(ElementFilter(dataset, filter));
    } else if (op == "range") {
      filters.push_back(RangeFilter(dataset, filter));
    } else {
      throw std::runtime_error("unknown filter operator '" + op + "'");
    }
  }
  query.filter = RowFilter::Combine(RowFilter::Kind::kAnd, std::move(filters));

  std::vector<RowFilter> having;
  for (const auto& condition : cube["having"]) {
    having.push_back(RowFilter::Metric(measure_index.at(condition["measure"].get<std::string>()),
                                       ParseComparison(condition["op"].get<std::string>()),
                                       {condition["value"].get<double>()}));
  }
  if (!having.empty()) query.limit_filter = RowFilter::Combine(RowFilter::Kind::kAnd, having);

  for (const auto& key : cube["order_by"]) {
    const std::string name = key["key"].get<std::string>();
    SortKey sort;
    sort.descending = key.value("dir", "asc") == "desc";
    const auto attribute = std::find(group_by.begin(), group_by.end(), name);
    if (attribute != group_by.end()) {
      sort.kind = SortKey::Kind::kAttribute;
      sort.index = static_cast<int>(attribute - group_by.begin());
      sort.form = BenchForm(dataset, query.attributes[sort.index]);
    } else {
      sort.kind = SortKey::Kind::kMetric;
      sort.index = measure_index.at(name);
    }
    query.sort.push_back(sort);
  }
  if (cube.contains("limit") && !cube["limit"].is_null()) query.top = cube["limit"].get<size_t>();
  return query;
}

Json JsonOf(const Cell& cell) {
  if (const auto* integer = std::get_if<int64_t>(&cell)) return *integer;
  if (const auto* real = std::get_if<double>(&cell)) return *real;
  if (const auto* text = std::get_if<std::string>(&cell)) return *text;
  return nullptr;
}

Json ResultJson(const Dataset& dataset, const Json& cube, const ResultSet& result) {
  Json columns = Json::array();
  for (const auto& name : cube["group_by"]) columns.push_back(name);
  for (const auto& metric : result.metrics) columns.push_back(metric.name);
  Json rows = Json::array();
  for (size_t row = 0; row < result.row_count; ++row) {
    Json cells = Json::array();
    for (size_t i = 0; i < result.attributes.size(); ++i) {
      const int attribute = result.attributes[i];
      cells.push_back(JsonOf(dataset.attribute(attribute).dictionary.Value(
          BenchForm(dataset, attribute), result.codes[i][row])));
    }
    for (size_t metric = 0; metric < result.metrics.size(); ++metric) {
      const auto value = result.Value(metric, row);
      cells.push_back(value ? Json(*value) : Json(nullptr));
    }
    rows.push_back(std::move(cells));
  }
  return {{"columns", columns}, {"rows", rows}};
}

// --- Running ---------------------------------------------------------------------------------

// As the server runs a query: as a task of the compute pool, which it may split further.
ResultSet RunOnPool(ThreadPool& pool, const std::shared_ptr<const Dataset>& dataset,
                    const CubeQuery& query) {
  std::promise<ResultSet> promise;
  std::future<ResultSet> answer = promise.get_future();
  pool.Post([&] {
    try {
      promise.set_value(engine::ExecuteCubeQuery(dataset, query, &pool));
    } catch (...) {
      promise.set_exception(std::current_exception());
    }
  });
  return answer.get();
}

// The floor loop on rows [begin, end): per-code sums into `sums`.
void SumByCode(const uint8_t* codes, const double* values, size_t begin, size_t end,
               std::array<double, 256>& sums) {
  for (size_t row = begin; row < end; ++row) sums[codes[row]] += values[row];
}

// Milliseconds of one floor loop on `threads` ranges run on the pool; `checksum` keeps the
// compiler from dropping the work.
double FloorLoopMs(ThreadPool& pool, size_t threads, const uint8_t* codes, const double* values,
                   size_t rows, double& checksum) {
  struct alignas(64) Partial {
    std::array<double, 256> sums{};
  };
  std::vector<Partial> partials(threads);
  const Clock::time_point start = Clock::now();
  if (threads == 1) {
    SumByCode(codes, values, 0, rows, partials[0].sums);
  } else {
    std::latch done(static_cast<std::ptrdiff_t>(threads));
    for (size_t t = 0; t < threads; ++t) {
      pool.Post([&, t] {
        SumByCode(codes, values, rows * t / threads, rows * (t + 1) / threads, partials[t].sums);
        done.count_down();
      });
    }
    done.wait();
  }
  std::array<double, 256> total{};
  for (const auto& partial : partials) {
    for (size_t code = 0; code < total.size(); ++code) total[code] += partial.sums[code];
  }
  const double ms = MillisecondsSince(start);
  for (double sum : total) checksum += sum;
  return ms;
}

// The floor loop over the first attribute stored in one byte and the revenue sums.
Json FloorLoop(ThreadPool& pool, size_t threads, const Dataset& dataset, int runs) {
  const engine::AttributeColumn* byte_codes = nullptr;
  for (const auto& attribute : dataset.attributes()) {
    if (attribute.codes.width() == 1) {
      byte_codes = &attribute;
      break;
    }
  }
  const auto& revenue = dataset.metric(MetricIndex(dataset, MetricId("sum", "revenue")));
  if (!byte_codes || !revenue.values) throw std::runtime_error("no column for the floor loop");
  const uint8_t* codes = byte_codes->codes.data<uint8_t>();
  const double* values = revenue.values->data();
  double checksum = 0;
  auto median_ms = [&](size_t threads) {
    std::vector<double> runs_ms;
    FloorLoopMs(pool, threads, codes, values, dataset.row_count(), checksum);  // warm-up
    for (int run = 0; run < runs; ++run) {
      runs_ms.push_back(FloorLoopMs(pool, threads, codes, values, dataset.row_count(), checksum));
    }
    return Median(runs_ms);
  };
  Json floor;
  floor["floor_1thread_ms"] = median_ms(1);
  floor["floor_ms"] = median_ms(threads);
  floor["floor_attribute"] = byte_codes->name;
  floor["floor_checksum"] = checksum;
  return floor;
}

struct Options {
  std::string warehouse_url;
  std::string queries_path;
  std::string out_path;
  std::string snapshot_path;
  int runs = 5;
  size_t threads = 2;
};

Options ParseOptions(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) throw std::runtime_error(flag + " needs a value");
    const std::string value = argv[i + 1];
    if (flag == "--warehouse") {
      options.warehouse_url = value;
    } else if (flag == "--queries") {
      options.queries_path = value;
    } else if (flag == "--out") {
      options.out_path = value;
    } else if (flag == "--runs") {
      options.runs = std::stoi(value);
    } else if (flag == "--threads") {
      options.threads = std::stoul(value);
    } else if (flag == "--reuse-snapshot") {
      options.snapshot_path = value;
    } else {
      throw std::runtime_error("unknown flag " + flag);
    }
  }
  if (options.warehouse_url.empty() || options.queries_path.empty() || options.out_path.empty() ||
      options.runs < 1 || options.threads < 1) {
    throw std::runtime_error(
        "usage: bench_cube_queries --warehouse URL --queries FILE --out FILE [--runs K] "
        "[--threads T] [--reuse-snapshot FILE]");
  }
  return options;
}

double TimedQueryMs(engine::warehouse::Warehouse& warehouse, const std::string& text,
                    CountingSink& sink) {
  const engine::warehouse::QueryOptions no_timeout{.timeout = std::chrono::hours(24)};
  const Clock::time_point start = Clock::now();
  warehouse.Query({text, {}}, sink, no_timeout);
  return MillisecondsSince(start);
}

int Run(const Options& options) {
  Json queries;
  std::ifstream(options.queries_path) >> queries;
  queries = queries.at("queries");

  auto warehouse =
      engine::warehouse::Warehouse::Open({.name = "bench", .url = options.warehouse_url});
  Json report;

  // Publish: the one SELECT streamed into the builder; the plain scan of the same SELECT (run
  // twice, so the warehouse file is as warm for the publish as for the timed scan); and the
  // warehouse's own aggregate over the same join.
  std::shared_ptr<const Dataset> dataset;
  if (!options.snapshot_path.empty() && std::filesystem::exists(options.snapshot_path)) {
    dataset = engine::ReadDatasetSnapshot(options.snapshot_path);
  } else {
    engine::sql::DatasetBuilder builder(AttributeSpecs(), MetricSpecs(queries));
    const std::string select = SelectText(warehouse->dialect(), builder.ColumnCount());
    CountingSink warm_up, scan, aggregate;
    TimedQueryMs(*warehouse, select, warm_up);
    report["scan_ms"] = TimedQueryMs(*warehouse, select, scan);
    report["aggregate_scan_ms"] = TimedQueryMs(
        *warehouse, "SELECT count(*), sum(f.revenue)" + JoinsText(warehouse->dialect()), aggregate);
    const engine::warehouse::QueryOptions no_timeout{.timeout = std::chrono::hours(24)};
    const Clock::time_point start = Clock::now();
    warehouse->Query({select, {}}, builder, no_timeout);
    dataset = std::make_shared<const Dataset>(builder.Finish());
    report["publish_ms"] = MillisecondsSince(start);
    std::cerr << "published " << dataset->row_count() << " rows in "
              << report["publish_ms"].get<double>() << " ms (scan "
              << report["scan_ms"].get<double>() << " ms)\n";
    if (!options.snapshot_path.empty())
      engine::WriteDatasetSnapshot(*dataset, options.snapshot_path);
  }
  report["rows"] = dataset->row_count();
  report["threads"] = options.threads;
  report["memory_bytes"] = dataset->MemoryBytes();
  report["raw_bytes"] = dataset->RawBytes();

  ThreadPool pool(options.threads);
  report.update(FloorLoop(pool, options.threads, *dataset, options.runs));
  const double baseline_kib = StatusKib("VmRSS");
  report["baseline_rss_mib"] = Mib(baseline_kib);

  report["queries"] = Json::array();
  for (const auto& query : queries) {
    const std::string id = query["id"].get<std::string>();
    const CubeQuery cube_query = TranslateQuery(*dataset, query["cube"]);
    const double before_kib = StatusKib("VmRSS");
    ResetPeakRss();
    const ResultSet answer = RunOnPool(pool, dataset, cube_query);
    std::vector<double> runs_ms;
    for (int run = 0; run < options.runs; ++run) {
      const Clock::time_point start = Clock::now();
      RunOnPool(pool, dataset, cube_query);
      runs_ms.push_back(MillisecondsSince(start));
    }
    const double peak_kib = StatusKib("VmHWM");
    report["queries"].push_back({{"id", id},
                                 {"median_ms", Median(runs_ms)},
                                 {"runs_ms", runs_ms},
                                 {"peak_rss_mib", Mib(peak_kib)},
                                 {"peak_above_baseline_mib", Mib(peak_kib - before_kib)},
                                 {"result", ResultJson(*dataset, query["cube"], answer)}});
    std::cerr << "tessera " << id << " " << Median(runs_ms) << " ms\n";
  }

  std::ofstream(options.out_path) << report.dump(1) << "\n";
  return 0;
}

}  // namespace
}  // namespace tessera::bench

int main(int argc, char** argv) {
  try {
    return tessera::bench::Run(tessera::bench::ParseOptions(argc, argv));
  } catch (const std::exception& error) {
    std::cerr << "bench_cube_queries: " << error.what() << "\n";
    return 1;
  }
}
