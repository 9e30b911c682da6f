#include "api/dataset/instance_requests.h"

#include <set>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/strings.h"

namespace tessera::api::dataset {

namespace {

// The keys of an instance creation body; any other is refused.
const std::vector<std::string_view> kInstanceBodyKeys = {
    "requestedObjects", "viewFilter", "metricLimits", "sorting", "subtotals", "currentPageBy"};
// The keys of the body that re-sorts an existing instance; any other is refused.
const std::vector<std::string_view> kResortBodyKeys = {"sorting", "currentPageBy"};

[[noreturn]] void Invalid(std::string message) {
  throw Error(ErrorCode::kInvalidInput, std::move(message));
}

const Json& Member(const Json& object, std::string_view key) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  auto found = object.find(key);
  return found == object.end() ? kNull : *found;
}

// An optional list member: null or absent = empty.
const Json& ListMember(const Json& object, std::string_view key, std::string_view path) {
  static const Json kEmpty = Json::array();
  const Json& value = Member(object, key);
  if (value.is_null()) return kEmpty;
  if (!value.is_array()) Invalid(std::string(path) + " must be an array");
  return value;
}

// The "id" of an item, which must be a non-empty string.
std::string IdOf(const Json& item, std::string_view path) {
  const Json& id = Member(item, "id");
  if (!id.is_string() || id.get<std::string>().empty()) {
    Invalid(std::string(path) + " must be an object with a non-empty string \"id\"");
  }
  return id.get<std::string>();
}

// ---- requestedObjects ----

std::vector<std::string> FormsOf(const Json& attribute) {
  std::vector<std::string> forms;
  for (const auto& form : ListMember(attribute, "forms", "requestedObjects.attributes[].forms")) {
    forms.push_back(IdOf(form, "requestedObjects.attributes[].forms[]"));
  }
  return forms;
}

// Null or {} asks for no object of either kind; the first request of an attribute wins.
service::instance::RequestedObjects RequestedObjectsOf(const Json& given) {
  service::instance::RequestedObjects objects;
  std::set<std::string> seen;
  for (const auto& item : ListMember(given, "attributes", "requestedObjects.attributes")) {
    const std::string id = ToUpper(IdOf(item, "requestedObjects.attributes[]"));
    if (!seen.insert(id).second) continue;
    objects.attributes.push_back({id, FormsOf(item)});
  }
  for (const auto& item : ListMember(given, "metrics", "requestedObjects.metrics")) {
    objects.metric_ids.push_back(ToUpper(IdOf(item, "requestedObjects.metrics[]")));
  }
  return objects;
}

// ---- sorting ----

std::string ItemPath(std::string_view axis, size_t i) {
  return "the sorting " + std::string(axis) + " array[" + std::to_string(i) + "]";
}

// The item's "type", or the kind its members tell when it has none ("" when they do not).
std::string SortItemType(const Json& item) {
  const Json& type = Member(item, "type");
  if (type.is_string()) return type.get<std::string>();
  if (!type.is_null()) Invalid("Incorrect node type in the sorting array: \"type\" must be text");
  if (item.contains("metric")) return "metric";
  if (item.contains("form")) return "form";
  if (item.contains("attribute")) return "attribute";
  if (item.contains("subtotalsPosition")) return "subtotalsPosition";
  return "";
}

bool IsDescending(const Json& item, const std::string& path) {
  const Json& order = Member(item, "order");
  if (order.is_null()) return false;
  if (!order.is_string()) Invalid("Incorrect order in " + path + ": ascending or descending");
  const std::string text = order.get<std::string>();
  if (EqualsIgnoreCase(text, "ascending")) return false;
  if (EqualsIgnoreCase(text, "descending")) return true;
  Invalid("Incorrect order '" + text + "' in " + path + ": ascending or descending");
}

// first, last or inherit (or absent); mixed only where `allow_mixed`.
std::optional<std::string> SubtotalsPosition(const Json& item, bool allow_mixed,
                                             const std::string& type) {
  const Json& position = Member(item, "subtotalsPosition");
  if (position.is_null()) return std::nullopt;
  const std::string text = position.is_string() ? position.get<std::string>() : position.dump();
  if (text == "first" || text == "last" || text == "inherit") return text;
  if (text == "mixed") {
    if (allow_mixed) return text;
    Invalid("Subtotals position 'mixed' cannot be applied for sort of type " + type + ".");
  }
  Invalid("Unknown subtotals position value " + text + ".");
}

std::string SortAttributeId(const Json& item, const std::string& path) {
  const Json& attribute = Member(item, "attribute");
  if (!attribute.is_object() || !Member(attribute, "id").is_string()) {
    Invalid("Attribute ID should not be null or empty in " + path);
  }
  return ToUpper(attribute["id"].get<std::string>());
}

service::instance::SortItem FormSort(const Json& item, const std::string& path) {
  service::instance::SortItem sort;
  sort.kind = service::instance::SortItem::Kind::kForm;
  sort.attribute_id = SortAttributeId(item, path);
  const Json& form = Member(item, "form");
  if (!form.is_object() || !Member(form, "id").is_string()) {
    Invalid("Attribute form ID should not be null or empty in " + path);
  }
  sort.form = form["id"].get<std::string>();
  sort.descending = IsDescending(item, path);
  SubtotalsPosition(item, false, "form");
  return sort;
}

service::instance::SortItem AttributeSort(const Json& item, const std::string& path) {
  if (item.contains("order") || item.contains("subtotalsPosition")) {
    Invalid("Incorrect node type in " + path +
            ": an attribute sort takes neither \"order\" nor \"subtotalsPosition\"");
  }
  service::instance::SortItem sort;
  sort.kind = service::instance::SortItem::Kind::kAttribute;
  sort.attribute_id = SortAttributeId(item, path);
  return sort;
}

service::instance::SortItem MetricSort(const Json& item, size_t i, const std::string& path) {
  const Json& metric = Member(item, "metric");
  if (!metric.is_object() || !Member(metric, "id").is_string() ||
      metric["id"].get<std::string>().empty()) {
    Invalid("Metric ID should not be null or empty in the sorting array[" + std::to_string(i) +
            "]");
  }
  service::instance::SortItem sort;
  sort.kind = service::instance::SortItem::Kind::kMetric;
  sort.metric_id = ToUpper(metric["id"].get<std::string>());
  if (!ListMember(item, "elements", path + ".elements").empty()) {
    Invalid("Metric sort by elements in " + path + " applies to cross-tab grids only");
  }
  sort.descending = IsDescending(item, path);
  SubtotalsPosition(item, true, "metric");
  return sort;
}

service::instance::SortItem SubtotalsSort(const Json& item, size_t i, const std::string& path) {
  if (i != 0) Invalid("Incorrect node type in " + path + ": subtotalsPosition comes first");
  service::instance::SortItem sort;
  sort.kind = service::instance::SortItem::Kind::kSubtotalsPosition;
  sort.subtotals_position = SubtotalsPosition(item, false, "subtotalsPosition");
  return sort;
}

std::vector<service::instance::SortItem> RowItems(const Json& items) {
  std::vector<service::instance::SortItem> rows;
  for (size_t i = 0; i < items.size(); ++i) {
    const Json& item = items[i];
    const std::string path = ItemPath("rows", i);
    if (!item.is_object()) Invalid("Incorrect node type in " + path + ": an object is expected");
    const std::string type = SortItemType(item);
    if (type == "form") {
      rows.push_back(FormSort(item, path));
    } else if (type == "attribute") {
      rows.push_back(AttributeSort(item, path));
    } else if (type == "metric") {
      rows.push_back(MetricSort(item, i, path));
    } else if (type == "subtotalsPosition") {
      rows.push_back(SubtotalsSort(item, i, path));
    } else {
      Invalid("Incorrect node type '" + type + "' in " + path +
              ": form, attribute, metric or subtotalsPosition");
    }
  }
  return rows;
}

Json CheckedColumns(const Json& items) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (i != 0 || SortItemType(items[i]) != "subtotalsPosition") {
      Invalid("Incorrect node type in " + ItemPath("columns", i) +
              ": the columns hold only the metrics, sorted by the rows");
    }
    SubtotalsPosition(items[i], false, "subtotalsPosition");
  }
  return items;
}

void CheckPageBy(const Json& items) {
  for (const auto& item : items) {
    if (SortItemType(item) == "metric") Invalid("Metric sort cannot be applied in page-by.");
  }
  if (!items.empty()) Invalid("Incorrect node type in the sorting pageBy array: no page-by");
}

std::optional<service::instance::Sorting> SortingOf(const Json& sorting) {
  if (sorting.is_null()) return std::nullopt;
  service::instance::Sorting parsed;
  if (sorting.is_array()) {
    parsed.rows = RowItems(sorting);
  } else if (sorting.is_object()) {
    parsed.rows = RowItems(ListMember(sorting, "rows", "sorting.rows"));
    parsed.columns = CheckedColumns(ListMember(sorting, "columns", "sorting.columns"));
    CheckPageBy(ListMember(sorting, "pageBy", "sorting.pageBy"));
  } else {
    Invalid("sorting must be an object {\"rows\",\"columns\",\"pageBy\"} or an array");
  }
  return parsed;
}

// ---- the bodies ----

bool SubtotalsVisible(const Json& subtotals) {
  if (subtotals.is_object() && Member(subtotals, "visible").is_boolean()) {
    return subtotals["visible"].get<bool>();
  }
  if (!subtotals.is_null() && !subtotals.is_object()) {
    Invalid("subtotals must be an object {\"visible\": true|false}");
  }
  return false;
}

// The faults of the body as a whole, refused before the report or cube is looked at.
void CheckInstanceBody(const Json& body) {
  if (!body.is_null() && !body.is_object()) Invalid("The request body must be a JSON object");
  RequireKnownKeys(body, kInstanceBodyKeys, "a report or cube instance body");
  const Json& requested_objects = Member(body, "requestedObjects");
  if (!requested_objects.is_null() && !requested_objects.is_object()) {
    Invalid("requestedObjects must be an object {\"attributes\": [...], \"metrics\": [...]}");
  }
  const Json& view_filter = Member(body, "viewFilter");
  if (!view_filter.is_null() && !view_filter.is_object()) {
    Invalid("viewFilter must be an expression object");
  }
  const Json& metric_limits = Member(body, "metricLimits");
  if (!metric_limits.is_null() && !metric_limits.is_object()) {
    Invalid("metricLimits must be an object keyed by metric id");
  }
  SubtotalsVisible(Member(body, "subtotals"));
  if (!ListMember(body, "currentPageBy", "currentPageBy").empty()) {
    Invalid("currentPageBy must be empty: this report has no page-by attributes");
  }
}

// The request of a body CheckInstanceBody passed; its requested objects and sorting may still be
// refused.
service::instance::InstanceRequest RequestOf(const Json& body) {
  service::instance::InstanceRequest request;
  if (body.is_object() && body.contains("requestedObjects")) {
    request.requested_objects = RequestedObjectsOf(body["requestedObjects"]);
  }
  request.view_filter = Member(body, "viewFilter");
  request.metric_limits = Member(body, "metricLimits");
  request.subtotals_visible = SubtotalsVisible(Member(body, "subtotals"));
  request.sorting = SortingOf(Member(body, "sorting"));
  return request;
}

void CheckResortBody(const Json& body) {
  if (!body.is_null() && !body.is_object()) Invalid("The request body must be a JSON object");
  RequireKnownKeys(body, kResortBodyKeys,
                   "the body that re-sorts an instance (to change its objects or filters, create "
                   "a new instance)");
  const Json& page_by = Member(body, "currentPageBy");
  if (!page_by.is_null() && !(page_by.is_array() && page_by.empty())) {
    Invalid("currentPageBy must be empty: this report has no page-by attributes");
  }
}

}  // namespace

service::Parsed<service::instance::InstanceRequest> ReadInstanceRequest(const Json& body) {
  CheckInstanceBody(body);
  return service::ParsedOf([&] { return RequestOf(body); });
}

service::instance::InstanceRequest ParseInstanceRequest(const Json& body) {
  service::Parsed<service::instance::InstanceRequest> request = ReadInstanceRequest(body);
  return std::move(request.value());
}

service::Parsed<std::optional<service::instance::Sorting>> ReadResortRequest(const Json& body) {
  CheckResortBody(body);
  return service::ParsedOf([&] { return SortingOf(Member(body, "sorting")); });
}

std::optional<service::instance::Sorting> ParseResortRequest(const Json& body) {
  service::Parsed<std::optional<service::instance::Sorting>> sorting = ReadResortRequest(body);
  return std::move(sorting.value());
}

}  // namespace tessera::api::dataset
