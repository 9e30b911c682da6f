#include "engine/sql/report_runner.h"

#include <cmath>
#include <map>

#include "core/error.h"
#include "engine/arithmetic.h"

namespace tessera::engine::sql {

namespace {

std::optional<double> AsNumber(const warehouse::SqlValue& value) {
  if (auto* integer = std::get_if<int64_t>(&value)) return static_cast<double>(*integer);
  if (auto* real = std::get_if<double>(&value)) return *real;
  return std::nullopt;
}

class ResultSink : public warehouse::RowSink {
 public:
  ResultSink(const model::SemanticModel& model, const GeneratedSql& generated,
             const std::vector<std::string>& metric_ids, ReportResult& result)
      : model_(model), generated_(generated), metric_ids_(metric_ids), result_(result) {
    for (const auto& attribute : generated.columns.attributes) {
      attribute_column_count_ += attribute.form_names.size();
    }
  }

  void OnColumns(const std::vector<std::string>&) override {}

  void OnRow(const std::vector<warehouse::SqlValue>& row) override {
    ReportResult::Row out;
    out.attribute_values.assign(row.begin(), row.begin() + attribute_column_count_);
    std::map<std::string, std::optional<double>> simple;
    const auto& simple_ids = generated_.columns.simple_metric_ids;
    for (size_t i = 0; i < simple_ids.size(); ++i) {
      simple[simple_ids[i]] = AsNumber(row[attribute_column_count_ + i]);
    }
    for (const auto& metric_id : metric_ids_) {
      out.metric_values.push_back(EvaluateMetric(model_, metric_id, simple));
    }
    result_.rows.push_back(std::move(out));
  }

 private:
  const model::SemanticModel& model_;
  const GeneratedSql& generated_;
  const std::vector<std::string>& metric_ids_;
  ReportResult& result_;
  size_t attribute_column_count_ = 0;
};

}  // namespace

std::optional<double> EvaluateMetric(const model::SemanticModel& model,
                                     const std::string& metric_id,
                                     const std::map<std::string, std::optional<double>>& simple) {
  const model::Metric& metric = model.metric(metric_id);
  if (!metric.is_compound) {
    auto it = simple.find(metric_id);
    return it == simple.end() ? std::nullopt : it->second;
  }
  auto value = EvaluateArithmetic(*metric.expression.root, [&](const std::string& reference) {
    return EvaluateMetric(model, reference, simple);
  });
  if (value && !std::isfinite(*value)) return std::nullopt;
  return value;
}

ReportResult RunReport(warehouse::Warehouse& warehouse, const model::SemanticModel& model,
                       const ReportQuery& query, const warehouse::QueryOptions& options) {
  GeneratedSql generated = GenerateReportSql(model, query, warehouse.dialect());
  ReportResult result;
  result.columns = generated.columns;
  result.metric_ids = query.metric_ids;
  ResultSink sink(model, generated, result.metric_ids, result);
  warehouse.Query(generated.statement, sink, options);
  return result;
}

}  // namespace tessera::engine::sql
