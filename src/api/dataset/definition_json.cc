#include "api/dataset/definition_json.h"

namespace tessera::api::dataset {

namespace {

// The id of the templateMetrics object, as the reference server sends it.
constexpr const char* kTemplateMetricsId = "00000000000000000000000000000000";

struct FormTypeNames {
  const char* v2_data_type;
  const char* v1_data_type;
  const char* v2_base_type;
  const char* v1_base_type;
};

FormTypeNames NamesOf(model::DataType type) {
  switch (type) {
    case model::DataType::kText:
      return {"UTF8Char", "Char", "text", "Text"};
    case model::DataType::kInteger:
      return {"integer", "Real", "number", "Number"};
    case model::DataType::kReal:
      return {"double", "Real", "number", "Number"};
    case model::DataType::kDate:
      return {"date", "Date", "date", "Date"};
    case model::DataType::kDateTime:
      return {"timeStamp", "TimeStamp", "datetime", "DateTime"};
    case model::DataType::kBoolean:
      return {"bool", "Bool", "number", "Number"};
  }
  return {"UTF8Char", "Char", "text", "Text"};
}

Json TemplateMetricsJson(const service::instance::DatasetDefinition& definition) {
  return {{"name", "Metrics"},
          {"id", kTemplateMetricsId},
          {"type", "templateMetrics"},
          {"elements", MetricsJsonV2(definition)}};
}

}  // namespace

Json FormJsonV1(const service::instance::FormDefinition& form) {
  FormTypeNames names = NamesOf(form.type);
  return {{"id", form.id},
          {"name", form.name},
          {"dataType", names.v1_data_type},
          {"baseFormType", names.v1_base_type}};
}

Json FormJsonV2(const service::instance::FormDefinition& form) {
  FormTypeNames names = NamesOf(form.type);
  return {{"id", form.id},
          {"name", form.name},
          {"dataType", names.v2_data_type},
          {"baseFormCategory", form.category},
          {"baseFormType", names.v2_base_type}};
}

Json AttributeJsonV1(const service::instance::AttributeDefinition& attribute) {
  Json forms = Json::array();
  for (const auto& form : attribute.forms) forms.push_back(FormJsonV1(form));
  return {{"name", attribute.name}, {"id", attribute.id}, {"type", "Attribute"}, {"forms", forms}};
}

Json AttributeJsonV2(const service::instance::AttributeDefinition& attribute) {
  Json forms = Json::array();
  for (const auto& form : attribute.forms) forms.push_back(FormJsonV2(form));
  return {{"name", attribute.name}, {"id", attribute.id}, {"type", "attribute"}, {"forms", forms}};
}

Json MetricJsonV1(const service::instance::MetricDefinition& metric) {
  return {{"name", metric.name}, {"id", metric.id}, {"type", "Metric"}};
}

Json MetricJsonV2(const service::instance::MetricDefinition& metric) {
  // Metric values are doubles in every result.
  return {{"name", metric.name}, {"id", metric.id}, {"type", "metric"}, {"dataType", "double"}};
}

Json AttributesJsonV2(const service::instance::DatasetDefinition& definition) {
  Json attributes = Json::array();
  for (const auto& attribute : definition.attributes) {
    attributes.push_back(AttributeJsonV2(attribute));
  }
  return attributes;
}

Json MetricsJsonV2(const service::instance::DatasetDefinition& definition) {
  Json metrics = Json::array();
  for (const auto& metric : definition.metrics) metrics.push_back(MetricJsonV2(metric));
  return metrics;
}

Json AvailableObjectsV1(const service::instance::DatasetDefinition& definition) {
  Json attributes = Json::array();
  for (const auto& attribute : definition.attributes) {
    attributes.push_back(AttributeJsonV1(attribute));
  }
  Json metrics = Json::array();
  for (const auto& metric : definition.metrics) metrics.push_back(MetricJsonV1(metric));
  return {{"attributes", attributes}, {"metrics", metrics}};
}

Json AvailableObjectsV2(const service::instance::DatasetDefinition& definition) {
  return {{"attributes", AttributesJsonV2(definition)},
          {"metrics", MetricsJsonV2(definition)},
          {"customGroups", Json::array()},
          {"consolidations", Json::array()},
          {"hierarchies", Json::array()}};
}

Json ReportGridV2(const service::instance::DatasetDefinition& definition) {
  return {
      {"crossTab", false},
      {"metricsPosition", {{"axis", "columns"}, {"index", 0}}},
      {"rows", AttributesJsonV2(definition)},
      {"columns", Json::array({TemplateMetricsJson(definition)})},
      {"pageBy", Json::array()},
      {"subtotals", {{"defined", false}, {"visible", true}}},
      {"sorting", {{"rows", Json::array()}, {"columns", Json::array()}, {"pageBy", Json::array()}}},
      {"thresholds", Json::array()}};
}

}  // namespace tessera::api::dataset
