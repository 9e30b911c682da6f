// api/dataset/definition_json.h
//
// The JSON shapes of report, cube and dataset definitions: attributes with all their forms, and
// metrics, in the v1 and v2 vocabularies.
//   v1 attribute {"name","id","type":"Attribute","forms":[{"id","name","dataType","baseFormType"}]}
//      metric    {"name","id","type":"Metric"}
//   v2 attribute {"name","id","type":"attribute",
//                 "forms":[{"id","name","dataType","baseFormCategory","baseFormType"}]}
//      metric    {"name","id","type":"metric","dataType":"double"}
// Data types: string UTF8Char (v1 Char), integer integer (v1 Real), real double (v1 Real), date
// date, datetime timeStamp, boolean bool; baseFormType text, number, date, datetime (v1
// capitalised).
#pragma once

#include "core/json.h"
#include "service/instance/dataset_definition_service.h"

namespace tessera::api::dataset {

Json FormJsonV1(const service::instance::FormDefinition& form);
Json FormJsonV2(const service::instance::FormDefinition& form);
Json AttributeJsonV1(const service::instance::AttributeDefinition& attribute);
Json AttributeJsonV2(const service::instance::AttributeDefinition& attribute);
Json MetricJsonV1(const service::instance::MetricDefinition& metric);
Json MetricJsonV2(const service::instance::MetricDefinition& metric);

Json AttributesJsonV2(const service::instance::DatasetDefinition& definition);
Json MetricsJsonV2(const service::instance::DatasetDefinition& definition);

// {"attributes":[v1],"metrics":[v1]}
Json AvailableObjectsV1(const service::instance::DatasetDefinition& definition);
// {"attributes":[v2],"metrics":[v2],"customGroups":[],"consolidations":[],"hierarchies":[]}
Json AvailableObjectsV2(const service::instance::DatasetDefinition& definition);

// The v2 report grid: attributes on rows, one templateMetrics object on columns, every key present.
Json ReportGridV2(const service::instance::DatasetDefinition& definition);

}  // namespace tessera::api::dataset
