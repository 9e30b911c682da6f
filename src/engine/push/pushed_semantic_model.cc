#include "engine/push/pushed_semantic_model.h"

#include "core/ids.h"
#include "engine/push/pushed_dataset.h"
#include "model/object_types.h"

namespace tessera::engine::push {
namespace {

constexpr char kFactColumn[] = "value";

model::ObjectRecord Record(const std::string& dataset_id, std::string id, int type,
                           std::string name, Json definition) {
  model::ObjectRecord record;
  record.project_id = "";
  record.id = std::move(id);
  record.type = type;
  record.subtype = type << 8;
  record.name = std::move(name);
  record.folder_id = dataset_id;
  record.definition = std::move(definition);
  return record;
}

std::string FormColumn(size_t index) { return "form" + std::to_string(index); }

void AddAttribute(const std::string& dataset_id, const PushModel& model,
                  const PushAttribute& attribute, std::vector<model::ObjectRecord>& records) {
  const std::string table_id = DeterministicObjectId(dataset_id + "lookup:" + attribute.name);
  Json columns = Json::array();
  Json forms = Json::array();
  for (size_t f = 0; f < attribute.forms.size(); ++f) {
    const PushForm& form = attribute.forms[f];
    columns.push_back(
        {{"name", FormColumn(f)}, {"dataType", model::DataTypeName(FormType(model, form))}});
    forms.push_back({{"name", form.category}, {"column", FormColumn(f)}});
  }
  records.push_back(Record(dataset_id, table_id, model::kTypeTable, attribute.name,
                           {{"physicalName", "pushed"}, {"columns", columns}}));
  records.push_back(Record(dataset_id, PushedAttributeId(dataset_id, attribute.name),
                           model::kTypeAttribute, attribute.name,
                           {{"lookupTable", table_id}, {"forms", forms}}));
}

void AddMetric(const std::string& dataset_id, const PushModel& model, const PushMetric& metric,
               std::vector<model::ObjectRecord>& records) {
  const std::string table_id = DeterministicObjectId(dataset_id + "facts:" + metric.name);
  const std::string fact_id = DeterministicObjectId(dataset_id + "fact:" + metric.name);
  const bool is_boolean = IsBooleanMetric(model, metric);
  Json column = {{"name", kFactColumn}, {"dataType", is_boolean ? "integer" : "real"}};
  records.push_back(Record(dataset_id, table_id, model::kTypeTable, metric.name,
                           {{"physicalName", "pushed"}, {"columns", Json::array({column})}}));
  records.push_back(Record(dataset_id, fact_id, model::kTypeFact, metric.name,
                           {{"tables", Json::array({table_id})}, {"expression", kFactColumn}}));
  records.push_back(Record(dataset_id, PushedMetricId(dataset_id, metric.name), model::kTypeMetric,
                           metric.name,
                           {{"function", is_boolean ? "max" : "sum"}, {"fact", fact_id}}));
}

}  // namespace

model::SemanticModel PushedSemanticModel(const std::string& dataset_id,
                                         const std::string& dataset_name, const PushModel& model) {
  std::vector<model::ObjectRecord> records;
  Json attribute_ids = Json::array();
  Json metric_ids = Json::array();
  for (const auto& attribute : model.attributes) {
    AddAttribute(dataset_id, model, attribute, records);
    attribute_ids.push_back(records.back().id);
  }
  for (const auto& metric : model.metrics) {
    AddMetric(dataset_id, model, metric, records);
    metric_ids.push_back(records.back().id);
  }
  model::ObjectRecord cube =
      Record(dataset_id, dataset_id, model::kTypeReportDefinition, dataset_name,
             {{"attributes", attribute_ids}, {"metrics", metric_ids}});
  cube.subtype = model::kSubtypeSuperCube;
  records.push_back(std::move(cube));
  return model::SemanticModel::Build(records);
}

}  // namespace tessera::engine::push
