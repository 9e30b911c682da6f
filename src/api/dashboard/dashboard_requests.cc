#include "api/dashboard/dashboard_requests.h"

#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"
#include "model/object_types.h"

namespace tessera::api::dashboard {

namespace {

using service::Parsed;
using service::dashboard::CurrentSelection;
using service::dashboard::FilterEntry;
using service::dashboard::GivenElement;
using service::dashboard::GivenObject;
using service::dashboard::OldQualification;
using service::dashboard::OldSelection;
using service::dashboard::SelectorName;

// ---- creation ----

bool Flag(const Json& body, const char* key, bool fallback) {
  return OptionalBool(body, key, key).value_or(fallback);
}

std::optional<std::string> NestedString(const Json& body, const char* object, const char* key) {
  if (!body.contains(object) || body[object].is_null()) return std::nullopt;
  if (!body[object].is_object()) {
    ThrowInvalidInput(std::string(object) + ": must be an object");
  }
  return OptionalString(body[object], key, std::string(object) + "." + key);
}

// Every option but the filters.
service::dashboard::DashboardCreateOptions FlagsOf(const Json& body) {
  service::dashboard::DashboardCreateOptions options;
  options.persist_view_state = Flag(body, "persistViewState", false);
  options.resolve_only = Flag(body, "resolveOnly", false);
  options.ignore_missing_filter = Flag(body, "ignoreMissingFilter", false);
  options.enable_parallel_rendering = Flag(body, "enableParallelRendering", true);
  options.apply_filter_resolve_only = Flag(body, "applyFilterResolveOnly", false);
  options.parallel_rendering_after_manipulation =
      Flag(body, "parallelRenderingAfterManipulation", false);
  options.target_page_key = NestedString(body, "linkingInfo", "targetPageKey");
  options.bookmark_id = NestedString(body, "bookmarkInfo", "id");
  return options;
}

std::optional<std::vector<FilterEntry>> FiltersOf(const Json& body) {
  if (!body.contains("filters") || body["filters"].is_null()) return std::nullopt;
  return ParseFilterEntries(body["filters"]);
}

std::vector<std::string> ObjectIdsOf(const Json& body) {
  if (!body.contains("objects") || !body["objects"].is_array() || body["objects"].empty()) {
    ThrowInvalidInput("objects: an array of {type, id} is required");
  }
  std::vector<std::string> ids;
  for (const auto& object : body["objects"]) {
    if (!object.is_object() || !object.contains("id") || !object["id"].is_string()) {
      ThrowInvalidInput("objects: every object needs an id");
    }
    const auto type = object.find("type");
    if (type != object.end() && !type->is_null() &&
        (!type->is_number_integer() || type->get<int64_t>() != model::kTypeReportDefinition)) {
      ThrowInvalidInput("objects: only reports and cubes (type 3) can make a dashboard");
    }
    ids.push_back(object["id"].get<std::string>());
  }
  return ids;
}

// ---- filter entries: what every entry has ----

std::vector<Json> EntriesOf(const Json& body) {
  if (body.is_object()) return {body};
  if (!body.is_array()) ThrowInvalidInput("The filters must be a JSON array of filter objects");
  std::vector<Json> entries;
  for (const auto& entry : body) {
    if (!entry.is_object())
      ThrowInvalidInput("Every filter must be a JSON object, got " + DumpJson(entry));
    entries.push_back(entry);
  }
  return entries;
}

std::optional<std::string> StringMember(const Json& entry, const char* member) {
  if (!entry.contains(member)) return std::nullopt;
  if (!entry[member].is_string()) ThrowInvalidInput(std::string(member) + ": must be a string");
  return entry[member].get<std::string>();
}

SelectorName SelectorNameOf(const Json& entry) {
  if (auto key = StringMember(entry, "visualizationKey")) {
    return {SelectorName::By::kVisualizationKey, *key};
  }
  if (auto key = StringMember(entry, "key")) return {SelectorName::By::kKey, *key};
  if (auto name = StringMember(entry, "name")) return {SelectorName::By::kName, *name};
  if (entry.contains("source") && entry["source"].is_object()) {
    const Json& source = entry["source"];
    if (auto id = StringMember(source, "id")) return {SelectorName::By::kSourceId, *id};
    if (auto name = StringMember(source, "name")) return {SelectorName::By::kSourceName, *name};
    ThrowInvalidInput("A filter's source needs an id or a name");
  }
  ThrowInvalidInput("A filter needs a key, a name, a source or a visualizationKey: " +
                    DumpJson(entry));
}

std::string Describe(const Json& entry) {
  for (const char* member : {"visualizationKey", "key", "name"}) {
    if (entry.contains(member) && entry[member].is_string()) {
      return std::string(member) + " '" + entry[member].get<std::string>() + "'";
    }
  }
  return "source " + DumpJson(entry.value("source", Json()));
}

bool IsNewFormat(const Json& entry) {
  return entry.contains("currentSelection") || entry.contains("visualizationKey");
}

bool IsOldFormat(const Json& entry) {
  for (const char* member : {"selections", "qualifier", "constants", "include", "unset"}) {
    if (entry.contains(member)) return true;
  }
  return false;
}

// ---- filter entries: what selectors of some types read ----

GivenElement ElementOf(const Json& element) {
  if (element.is_object() && element.contains("id") && element["id"].is_string()) {
    return {element["id"].get<std::string>(), ""};
  }
  if (element.is_object() && element.contains("name") && element["name"].is_string()) {
    return {std::nullopt, element["name"].get<std::string>()};
  }
  ThrowInvalidInput("Invalid element id - " + DumpJson(element));
}

std::vector<Parsed<GivenElement>> ElementsOf(const Json& list) {
  if (!list.is_array()) ThrowInvalidInput("elements: must be an array of {id, name}");
  std::vector<Parsed<GivenElement>> elements;
  for (const auto& element : list) {
    elements.push_back(Parsed<GivenElement>::Of([&] { return ElementOf(element); }));
  }
  return elements;
}

// "i<id>;<id>" and "U<id>;<id>" name <id>; a plain id is accepted too.
GivenObject ObjectItemOf(const Json& item) {
  if (!item.is_object() || !item.contains("id") || !item["id"].is_string()) {
    ThrowInvalidInput("objectItems: every item needs an id, got " + DumpJson(item));
  }
  const std::string text = item["id"].get<std::string>();
  const std::vector<std::string> segments = Split(text, ';');
  std::optional<std::string> id = CanonicalObjectId(segments.back());
  if (!id && text.size() == 33) id = CanonicalObjectId(std::string_view(text).substr(1));
  if (!id) ThrowInvalidInput("Invalid object item id - " + text);
  return {text, *id};
}

std::vector<Parsed<GivenObject>> ObjectItemsOf(const Json& items) {
  if (!items.is_array()) ThrowInvalidInput("objectItems: must be an array");
  std::vector<Parsed<GivenObject>> objects;
  for (const auto& item : items) {
    objects.push_back(Parsed<GivenObject>::Of([&] { return ObjectItemOf(item); }));
  }
  return objects;
}

std::string ValueText(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number()) return DumpJson(value);
  ThrowInvalidInput("values: every value is a string or a number, got " + DumpJson(value));
}

std::optional<std::vector<Parsed<std::string>>> ValuesOf(const Json& selection) {
  if (!selection.contains("values")) return std::nullopt;
  const Json& list = selection["values"];
  if (!list.is_array()) ThrowInvalidInput("values: must be an array");
  std::vector<Parsed<std::string>> values;
  for (const auto& value : list) {
    values.push_back(Parsed<std::string>::Of([&] { return ValueText(value); }));
  }
  return values;
}

Json ExpressionOf(const Json& selection) {
  if (!selection.contains("expression") || selection["expression"].is_null()) return Json();
  const Json& expression = selection["expression"];
  if (!expression.is_object())
    ThrowInvalidInput("expression: must be an object {operator, operands}");
  return expression;
}

model::SelectionStatus StatusOf(const Json& selection) {
  using model::SelectionStatus;
  if (!selection.contains("selectionStatus")) return SelectionStatus::kIncluded;
  const Json& status = selection["selectionStatus"];
  for (auto value :
       {SelectionStatus::kIncluded, SelectionStatus::kExcluded, SelectionStatus::kUnfiltered}) {
    if (status.is_string() && status.get<std::string>() == model::SelectionStatusName(value)) {
      return value;
    }
  }
  ThrowInvalidInput("selectionStatus: included, excluded or unfiltered, got " + DumpJson(status));
}

std::optional<CurrentSelection> CurrentSelectionOf(const Json& entry) {
  if (!entry.contains("currentSelection")) return std::nullopt;
  const Json& selection = entry["currentSelection"];
  if (!selection.is_object()) ThrowInvalidInput("currentSelection: must be an object");
  if (selection.contains("dynamicSelectionApplied")) {
    ThrowInvalidInput("currentSelection.dynamicSelectionApplied is read-only");
  }
  CurrentSelection current;
  current.status = StatusOf(selection);
  current.all_selected = selection.value("allSelected", false) == true;
  const Json elements = selection.value("elements", Json::array());
  current.elements =
      Parsed<std::vector<Parsed<GivenElement>>>::Of([&] { return ElementsOf(elements); });
  current.expression = Parsed<Json>::Of([&] { return ExpressionOf(selection); });
  const Json items = selection.value("objectItems", Json::array());
  current.object_items =
      Parsed<std::vector<Parsed<GivenObject>>>::Of([&] { return ObjectItemsOf(items); });
  current.values = Parsed<std::optional<std::vector<Parsed<std::string>>>>::Of(
      [&] { return ValuesOf(selection); });
  return current;
}

// The constants of an old-format qualification as the operands after the metric's: one
// "constants" operand for In and NotIn, one "constant" operand each otherwise.
Json ConstantOperands(const Json& entry, const std::string& qualifier) {
  const Json constants = entry.value("constants", Json::array());
  if (!constants.is_array()) ThrowInvalidInput("constants: must be an array");
  const std::string data_type = entry.value("dataType", std::string("Real"));
  if (qualifier == "In" || qualifier == "NotIn") {
    Json values = Json::array();
    for (const auto& constant : constants) values.push_back(ValueText(constant));
    return Json::array({{{"type", "constants"}, {"dataType", data_type}, {"values", values}}});
  }
  Json operands = Json::array();
  for (const auto& constant : constants) {
    operands.push_back(
        {{"type", "constant"}, {"dataType", data_type}, {"value", ValueText(constant)}});
  }
  return operands;
}

std::optional<OldQualification> OldQualificationOf(const Json& entry) {
  const std::optional<std::string> qualifier = StringMember(entry, "qualifier");
  if (!qualifier) return std::nullopt;
  return OldQualification{*qualifier, ConstantOperands(entry, *qualifier)};
}

OldSelection OldSelectionOf(const Json& entry) {
  OldSelection old;
  old.unset = Parsed<bool>::Of([&] { return entry.value("unset", false) == true; });
  old.has_selections = entry.contains("selections");
  old.has_qualifier_or_constants = entry.contains("qualifier") || entry.contains("constants");
  const Json selections = entry.value("selections", Json::array());
  old.selections =
      Parsed<std::vector<Parsed<GivenElement>>>::Of([&] { return ElementsOf(selections); });
  old.include = Parsed<bool>::Of([&] { return entry.value("include", true) != false; });
  old.qualification =
      Parsed<std::optional<OldQualification>>::Of([&] { return OldQualificationOf(entry); });
  return old;
}

FilterEntry EntryOf(const Json& entry) {
  FilterEntry parsed;
  parsed.selector = SelectorNameOf(entry);
  parsed.description = Describe(entry);
  if (IsNewFormat(entry)) {
    parsed.format = FilterEntry::Format::kNew;
    parsed.current_selection =
        Parsed<std::optional<CurrentSelection>>::Of([&] { return CurrentSelectionOf(entry); });
  } else if (IsOldFormat(entry)) {
    parsed.format = FilterEntry::Format::kOld;
    parsed.old = OldSelectionOf(entry);
  }
  return parsed;
}

}  // namespace

service::dashboard::DashboardCreateOptions ParseCreateOptions(const Json& body) {
  service::dashboard::DashboardCreateOptions options = FlagsOf(body);
  options.filters = service::ParsedOf([&] { return FiltersOf(body); });
  return options;
}

InMemoryDashboardRequest ParseInMemoryRequest(const Json& body) {
  InMemoryDashboardRequest request;
  request.options = FlagsOf(body);
  request.object_ids = ObjectIdsOf(body);
  request.options.filters = service::ParsedOf([&] { return FiltersOf(body); });
  return request;
}

std::vector<FilterEntry> ParseFilterEntries(const Json& body) {
  std::vector<FilterEntry> entries;
  for (const Json& entry : EntriesOf(body)) entries.push_back(EntryOf(entry));
  return entries;
}

}  // namespace tessera::api::dashboard
