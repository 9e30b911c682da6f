#include "engine/sql/report_sql.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"
#include "engine/element_id.h"
#include "engine/qualification.h"
#include "engine/sql/condition_sql.h"
#include "engine/sql/select_builder.h"

namespace tessera::engine::sql {

namespace {

// A fact table holding every fact the metrics aggregate and reaching every attribute.
std::string ChooseFactTable(const model::SemanticModel& model,
                            const std::vector<std::string>& simple_metric_ids) {
  std::optional<std::set<std::string>> candidates;
  for (const auto& metric_id : simple_metric_ids) {
    const model::Metric& metric = model.metric(metric_id);
    if (metric.function == model::AggregateFunction::kCountDistinct) continue;
    const model::Fact& fact = model.fact(metric.fact_id);
    std::set<std::string> tables(fact.table_ids.begin(), fact.table_ids.end());
    if (!candidates) {
      candidates = tables;
      continue;
    }
    std::set<std::string> common;
    std::set_intersection(candidates->begin(), candidates->end(), tables.begin(), tables.end(),
                          std::inserter(common, common.begin()));
    candidates = common;
  }
  if (!candidates) {  // no fact-based metric: any table a fact is read from
    candidates.emplace();
    for (const auto& [id, fact] : model.facts())
      candidates->insert(fact.table_ids.begin(), fact.table_ids.end());
  }
  if (candidates->empty()) {
    throw Error(
        ErrorCode::kInvalidInput,
        "the requested metrics have no fact table in common; a report reads one fact table");
  }
  return *candidates->begin();
}

}  // namespace

GeneratedSql GenerateReportSql(const model::SemanticModel& model, const ReportQuery& query,
                               warehouse::Dialect dialect) {
  for (const auto& id : query.attribute_ids) model.attribute(id);  // kNotFound for unknown ids
  std::vector<std::string> simple = model.SimpleMetrics(query.metric_ids);
  std::vector<std::string> filter_metrics =
      model.SimpleMetrics(MetricsInQualification(query.filter));
  std::vector<std::string> all_facts = simple;
  all_facts.insert(all_facts.end(), filter_metrics.begin(), filter_metrics.end());

  SelectBuilder builder(model, dialect, ChooseFactTable(model, all_facts));
  GeneratedSql generated;
  std::vector<std::string> select;
  std::vector<std::string> group_by;
  std::vector<std::string> order_by;
  for (const auto& attribute_id : query.attribute_ids) {
    const model::Attribute& attribute = model.attribute(attribute_id);
    ReportColumns::AttributeColumns columns{attribute_id, {}};
    for (const auto& form : attribute.forms) {
      std::string column = builder.FormColumn(attribute, form);
      select.push_back(column + " AS c" + std::to_string(select.size()));
      group_by.push_back(column);
      columns.form_names.push_back(form.name);
    }
    order_by.push_back(builder.FormColumn(attribute, attribute.id_form()));
    generated.columns.attributes.push_back(std::move(columns));
  }
  for (const auto& metric_id : simple) {
    const model::Metric& metric = model.metric(metric_id);
    if (query.avg_as_sum_and_count && metric.function == model::AggregateFunction::kAvg) {
      select.push_back(builder.AggregateFact(metric_id, model::AggregateFunction::kSum) + " AS c" +
                       std::to_string(select.size()));
      select.push_back(builder.AggregateFact(metric_id, model::AggregateFunction::kCount) +
                       " AS c" + std::to_string(select.size()));
    } else {
      select.push_back(builder.Aggregate(metric_id) + " AS c" + std::to_string(select.size()));
    }
    generated.columns.simple_metric_ids.push_back(metric_id);
  }
  if (select.empty()) {
    throw Error(ErrorCode::kInvalidInput, "a report needs at least one attribute or metric");
  }

  SplitQualification split = SplitByLevel(model, query.filter);
  std::string where = split.rows.is_null() ? "" : RowCondition(builder, split.rows);
  std::string having = split.groups.is_null() ? "" : GroupCondition(builder, split.groups);
  const bool aggregates = !simple.empty() || !having.empty();

  std::string sql = aggregates ? "SELECT " : "SELECT DISTINCT ";
  sql += JoinStrings(select, ", ") + " " + builder.FromClause();
  if (!where.empty()) sql += " WHERE " + where;
  if (aggregates && !group_by.empty()) sql += " GROUP BY " + JoinStrings(group_by, ", ");
  if (!having.empty()) sql += " HAVING " + having;
  if (query.ordered && !order_by.empty()) sql += " ORDER BY " + JoinStrings(order_by, ", ");
  generated.statement.text = std::move(sql);
  generated.statement.parameters = builder.TakeParameters();
  return generated;
}

ReportQuery QueryOfReport(const model::SemanticModel& model, const model::Report& report) {
  ReportQuery query;
  query.attribute_ids = report.attribute_ids;
  query.metric_ids = report.metric_ids;
  if (report.filter_id) query.filter = model.filter(*report.filter_id).qualification;
  return query;
}

std::string DisplaySql(const warehouse::SqlStatement& statement) {
  std::string out;
  size_t next = 0;
  for (char c : statement.text) {
    if (c != '?' || next >= statement.parameters.size()) {
      out += c;
      continue;
    }
    const warehouse::SqlValue& value = statement.parameters[next++];
    if (std::holds_alternative<std::monostate>(value)) out += "NULL";
    if (auto* integer = std::get_if<int64_t>(&value)) out += std::to_string(*integer);
    if (auto* real = std::get_if<double>(&value)) {
      char buffer[64];
      std::snprintf(buffer, sizeof buffer, "%.17g", *real);
      out += buffer;
    }
    if (auto* text = std::get_if<std::string>(&value)) {
      out += '\'';
      for (char t : *text) out += t == '\'' ? std::string("''") : std::string(1, t);
      out += '\'';
    }
  }
  return out;
}

}  // namespace tessera::engine::sql
