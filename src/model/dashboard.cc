#include "model/dashboard.h"

#include <array>
#include <set>
#include <utility>

#include "core/ids.h"
#include "model/definition_reader.h"
#include "model/object_types.h"

namespace tessera::model {
namespace {

constexpr std::array<std::pair<SelectorType, std::string_view>, 6> kSelectorTypeNames = {{
    {SelectorType::kAttributeElementList, "attribute_element_list"},
    {SelectorType::kAttributeQualification, "attribute_qualification"},
    {SelectorType::kMetricQualification, "metric_qualification"},
    {SelectorType::kObjectReplacement, "object_replacement"},
    {SelectorType::kVisualizationAsFilter, "visualization_as_filter"},
    {SelectorType::kValueParameter, "value_parameter"},
}};

constexpr std::array<std::pair<SelectionStatus, std::string_view>, 3> kStatusNames = {{
    {SelectionStatus::kIncluded, "included"},
    {SelectionStatus::kExcluded, "excluded"},
    {SelectionStatus::kUnfiltered, "unfiltered"},
}};

class DashboardParser {
 public:
  explicit DashboardParser(const ObjectRecord& record)
      : record_(record), reader_(record, kTypeDocumentDefinition) {}

  Dashboard Parse() {
    const Json& definition = reader_.definition();
    Dashboard dashboard;
    dashboard.id = record_.id;
    dashboard.name = record_.name;
    dashboard.parallel_rendering = Bool(definition, "parallelRendering", "", false);
    dashboard.dataset_ids = IdsOrNone(definition, "datasets", "");
    const Json& chapters = reader_.Array(definition, "chapters", "chapters");
    for (size_t c = 0; c < chapters.size(); ++c) {
      dashboard.chapters.push_back(ParseChapter(chapters[c], IndexPath("chapters", c)));
    }
    if (dashboard.chapters.empty()) reader_.Fail("chapters", "a dashboard has a chapter at least");
    CheckDatasets(dashboard);
    CheckTargets(dashboard);
    CheckParameters(dashboard);
    return dashboard;
  }

 private:
  // A chapter, page or visualization: an object with the key and the optional name each has.
  template <typename Part>
  Part KeyedPart(const Json& node, const std::string& path) {
    CheckObject(node, path);
    Part part;
    part.key = Key(node, path);
    part.name = OptionalString(node, "name", path).value_or("");
    return part;
  }

  Chapter ParseChapter(const Json& node, const std::string& path) {
    Chapter chapter = KeyedPart<Chapter>(node, path);
    chapter_key_ = chapter.key;
    page_key_.clear();
    EachOf(node, "filters", path, [&](const Json& item, const std::string& at) {
      chapter.filters.push_back(ParseSelector(item, SelectorPlace::kChapterFilter, at));
    });
    const Json& pages = reader_.Array(node, "pages", FieldPath(path, "pages"));
    for (size_t p = 0; p < pages.size(); ++p) {
      chapter.pages.push_back(ParsePage(pages[p], IndexPath(FieldPath(path, "pages"), p)));
    }
    if (chapter.pages.empty()) {
      reader_.Fail(FieldPath(path, "pages"), "a chapter has a page at least");
    }
    return chapter;
  }

  Page ParsePage(const Json& node, const std::string& path) {
    Page page = KeyedPart<Page>(node, path);
    page_key_ = page.key;
    EachOf(node, "visualizations", path, [&](const Json& item, const std::string& at) {
      page.visualizations.push_back(ParseVisualization(item, at));
    });
    EachOf(node, "selectors", path, [&](const Json& item, const std::string& at) {
      page.selectors.push_back(ParseSelector(item, SelectorPlace::kPageSelector, at));
    });
    return page;
  }

  Visualization ParseVisualization(const Json& node, const std::string& path) {
    Visualization visualization = KeyedPart<Visualization>(node, path);
    visualization.visualization_type =
        OptionalString(node, "visualizationType", path).value_or("grid");
    visualization.dataset_id = Id(node, "dataset", path);
    visualization.attribute_ids = IdsOrNone(node, "attributes", path);
    visualization.metric_ids = IdsOrNone(node, "metrics", path);
    if (const Json* limit = DefinitionReader::Find(node, "metricLimit")) {
      CheckObject(*limit, FieldPath(path, "metricLimit"));
      visualization.metric_limit = *limit;
    }
    if (const Json* selector = DefinitionReader::Find(node, "selector")) {
      visualization.as_filter =
          ParseSelector(*selector, SelectorPlace::kVisualization, FieldPath(path, "selector"));
      visualization.as_filter->key = visualization.key;
      if (visualization.as_filter->name.empty()) {
        visualization.as_filter->name = visualization.name;
      }
    }
    return visualization;
  }

  Selector ParseSelector(const Json& node, SelectorPlace place, const std::string& path) {
    CheckObject(node, path);
    Selector selector;
    selector.place = place;
    selector.chapter_key = chapter_key_;
    selector.page_key = place == SelectorPlace::kChapterFilter ? "" : page_key_;
    if (place != SelectorPlace::kVisualization) selector.key = Key(node, path);
    selector.name = OptionalString(node, "name", path).value_or("");
    selector.type = Type(node, place, path);
    if (const Json* source = DefinitionReader::Find(node, "source")) {
      selector.source_id = Id(*source, "id", FieldPath(path, "source"));
    }
    selector.display_style = OptionalString(node, "displayStyle", path).value_or("");
    selector.has_all_option = Bool(node, "hasAllOption", path, false);
    selector.multi_selection_allowed = Bool(node, "multiSelectionAllowed", path, false);
    selector.synchronized_across_chapter = Bool(node, "synchronizedAcrossChapter", path, false);
    selector.selection_required = Bool(node, "selectionRequired", path, false);
    if (Bool(node, "isParameterBased", path, false)) {
      selector.parameter_id = ParameterId(node, selector, path);
    }
    selector.targets = KeysOf(node, "targets", path);
    selector.available_objects = RefIds(node, "availableObjectItems", path);
    selector.default_dynamic_selection = Dynamic(node, path);
    selector.data_type = OptionalString(node, "dataType", path).value_or("");
    selector.min_value = ScalarText(node, "minValue", path);
    selector.max_value = ScalarText(node, "maxValue", path);
    if (const Json* selection = DefinitionReader::Find(node, "currentSelection")) {
      selector.saved = ParseSelection(*selection, FieldPath(path, "currentSelection"));
    }
    if (place == SelectorPlace::kVisualization && selector.targets.empty()) {
      reader_.Fail(FieldPath(path, "targets"), "a visualization used as a filter has targets");
    }
    return selector;
  }

  Selection ParseSelection(const Json& node, const std::string& path) {
    CheckObject(node, path);
    Selection selection;
    selection.elements = RefIds(node, "elements", path, /*check_ids=*/false);
    selection.objects = RefIds(node, "objectItems", path);
    if (const Json* expression = DefinitionReader::Find(node, "expression")) {
      CheckObject(*expression, FieldPath(path, "expression"));
      selection.expression = *expression;
    }
    EachOf(node, "values", path, [&](const Json& item, const std::string& at) {
      selection.values.push_back(Text(item, at));
    });
    const bool answered = !selection.elements.empty() || !selection.objects.empty() ||
                          !selection.expression.is_null() || !selection.values.empty();
    selection.all_selected = Bool(node, "allSelected", path, false);
    const std::optional<std::string> status = OptionalString(node, "selectionStatus", path);
    selection.status = answered ? SelectionStatus::kIncluded : SelectionStatus::kUnfiltered;
    if (status) {
      bool known = false;
      for (const auto& [value, name] : kStatusNames) {
        if (*status != name) continue;
        selection.status = value;
        known = true;
      }
      if (!known) {
        reader_.Fail(FieldPath(path, "selectionStatus"), "unknown status '" + *status + "'");
      }
    }
    return selection;
  }

  SelectorType Type(const Json& node, SelectorPlace place, const std::string& path) {
    std::optional<std::string> name = OptionalString(node, "selectorType", path);
    if (!name && place == SelectorPlace::kVisualization) {
      return SelectorType::kVisualizationAsFilter;
    }
    if (!name) reader_.Fail(FieldPath(path, "selectorType"), "required");
    const std::optional<SelectorType> type = ParseSelectorType(*name);
    if (!type) reader_.Fail(FieldPath(path, "selectorType"), "unknown type '" + *name + "'");
    if ((*type == SelectorType::kVisualizationAsFilter) !=
        (place == SelectorPlace::kVisualization)) {
      reader_.Fail(FieldPath(path, "selectorType"),
                   "visualization_as_filter is the type of a visualization's selector only");
    }
    return *type;
  }

  std::string ParameterId(const Json& node, const Selector& selector, const std::string& path) {
    if (DefinitionReader::Find(node, "parameterId")) return Id(node, "parameterId", path);
    return DeterministicObjectId("tessera:parameter:" + record_.id + ":" + selector.key);
  }

  std::optional<DynamicSelection> Dynamic(const Json& node, const std::string& path) {
    const Json* dynamic = DefinitionReader::Find(node, "defaultDynamicSelection");
    if (!dynamic) return std::nullopt;
    const std::string at = FieldPath(path, "defaultDynamicSelection");
    CheckObject(*dynamic, at);
    const std::string status = String(*dynamic, "status", at);
    if (status != "first_elements" && status != "last_elements") {
      reader_.Fail(FieldPath(at, "status"), "first_elements or last_elements");
    }
    const Json* quantity = DefinitionReader::Find(*dynamic, "quantity");
    if (!quantity || !quantity->is_number_integer() || quantity->get<int64_t>() < 1) {
      reader_.Fail(FieldPath(at, "quantity"), "a positive integer");
    }
    return DynamicSelection{status == "first_elements", quantity->get<int>()};
  }

  void CheckDatasets(const Dashboard& dashboard) {
    if (dashboard.dataset_ids.empty()) return;
    for (const auto& chapter : dashboard.chapters) {
      for (const auto& page : chapter.pages) {
        for (const auto& visualization : page.visualizations) {
          bool listed = false;
          for (const auto& id : dashboard.dataset_ids)
            listed = listed || id == visualization.dataset_id;
          if (!listed) {
            reader_.Fail("visualizations",
                         "'" + visualization.key + "' reads a dataset the dashboard does not list");
          }
        }
      }
    }
  }

  // Every {"type": "parameter", "key"} of a visualization's metric limit names a value parameter
  // of the visualization's chapter.
  void CheckParameters(const Dashboard& dashboard) {
    for (const auto& chapter : dashboard.chapters) {
      for (const auto& page : chapter.pages) {
        for (const auto& visualization : page.visualizations) {
          CheckParameterOperands(dashboard, chapter, visualization.key, visualization.metric_limit);
        }
      }
    }
  }

  void CheckParameterOperands(const Dashboard& dashboard, const Chapter& chapter,
                              const std::string& visualization, const Json& node) {
    if (node.is_array()) {
      for (const auto& item : node) CheckParameterOperands(dashboard, chapter, visualization, item);
      return;
    }
    if (!node.is_object()) return;
    if (node.value("type", "") == "parameter") {
      const std::string key = node.value("key", "");
      const Selector* selector = dashboard.FindSelector(key);
      if (!selector || selector->type != SelectorType::kValueParameter ||
          selector->chapter_key != chapter.key) {
        reader_.Fail("visualizations", "'" + visualization + "' uses parameter '" + key +
                                           "', no value parameter of its chapter");
      }
    }
    if (node.contains("operands")) {
      CheckParameterOperands(dashboard, chapter, visualization, node["operands"]);
    }
  }

  void CheckTargets(const Dashboard& dashboard) {
    for (const auto& chapter : dashboard.chapters) {
      for (const Selector* selector : dashboard.SelectorsOfChapter(chapter.key)) {
        for (const auto& target : selector->targets) {
          const Chapter* of = dashboard.ChapterOfVisualization(target);
          if (!of || of->key != chapter.key) {
            reader_.Fail("selectors", "'" + selector->key + "' targets '" + target +
                                          "', no visualization of its chapter");
          }
        }
      }
    }
  }

  std::string Key(const Json& node, const std::string& path) {
    std::string key = String(node, "key", path);
    if (key.empty()) reader_.Fail(FieldPath(path, "key"), "empty");
    if (!keys_.insert(key).second) {
      reader_.Fail(FieldPath(path, "key"), "'" + key + "' is used twice");
    }
    return key;
  }

  std::string String(const Json& node, std::string_view key, const std::string& path) {
    return reader_.String(node, key, FieldPath(path, key));
  }
  std::optional<std::string> OptionalString(const Json& node, std::string_view key,
                                            const std::string& path) {
    return reader_.OptionalString(node, key, FieldPath(path, key));
  }
  std::string Id(const Json& node, std::string_view key, const std::string& path) {
    return reader_.Id(node, key, FieldPath(path, key));
  }

  bool Bool(const Json& node, std::string_view key, const std::string& path, bool otherwise) {
    const Json* value = DefinitionReader::Find(node, key);
    if (!value) return otherwise;
    if (!value->is_boolean()) reader_.Fail(FieldPath(path, key), "true or false");
    return value->get<bool>();
  }

  std::vector<std::string> IdsOrNone(const Json& node, std::string_view key,
                                     const std::string& path) {
    if (!DefinitionReader::Find(node, key)) return {};
    return reader_.IdList(node, key, FieldPath(path, key));
  }

  // [{"key": K}, ...]
  std::vector<std::string> KeysOf(const Json& node, std::string_view key, const std::string& path) {
    std::vector<std::string> keys;
    EachOf(node, key, path, [&](const Json& item, const std::string& at) {
      CheckObject(item, at);
      keys.push_back(String(item, "key", at));
    });
    return keys;
  }

  // [{"id": I}, ...]
  std::vector<std::string> RefIds(const Json& node, std::string_view key, const std::string& path,
                                  bool check_ids = true) {
    std::vector<std::string> ids;
    EachOf(node, key, path, [&](const Json& item, const std::string& at) {
      CheckObject(item, at);
      ids.push_back(check_ids ? Id(item, "id", at) : String(item, "id", at));
    });
    return ids;
  }

  // Calls `parse(item, its path)` for each item of the optional list `node[key]`.
  template <typename Parse>
  void EachOf(const Json& node, std::string_view key, const std::string& path, Parse parse) {
    const Json* list = DefinitionReader::Find(node, key);
    if (!list) return;
    const std::string at = FieldPath(path, key);
    CheckArray(*list, at);
    for (size_t i = 0; i < list->size(); ++i) parse((*list)[i], IndexPath(at, i));
  }

  std::optional<std::string> ScalarText(const Json& node, std::string_view key,
                                        const std::string& path) {
    const Json* value = DefinitionReader::Find(node, key);
    if (!value) return std::nullopt;
    return Text(*value, FieldPath(path, key));
  }

  std::string Text(const Json& value, const std::string& path) {
    if (value.is_string()) return value.get<std::string>();
    if (value.is_number()) return value.dump();
    reader_.Fail(path, "a string or a number");
  }

  void CheckObject(const Json& node, const std::string& path) {
    if (!node.is_object()) reader_.Fail(path, "an object");
  }
  void CheckArray(const Json& node, const std::string& path) {
    if (!node.is_array()) reader_.Fail(path, "a list");
  }

  const ObjectRecord& record_;
  DefinitionReader reader_;
  std::set<std::string> keys_;
  std::string chapter_key_, page_key_;
};

template <typename Visit>
void ForEachVisualization(const Dashboard& dashboard, Visit visit) {
  for (const auto& chapter : dashboard.chapters) {
    for (const auto& page : chapter.pages) {
      for (const auto& visualization : page.visualizations) {
        if (visit(chapter, page, visualization)) return;
      }
    }
  }
}

}  // namespace

std::string_view SelectorTypeName(SelectorType type) {
  for (const auto& [value, name] : kSelectorTypeNames) {
    if (value == type) return name;
  }
  return "";
}

std::optional<SelectorType> ParseSelectorType(std::string_view name) {
  for (const auto& [value, type_name] : kSelectorTypeNames) {
    if (type_name == name) return value;
  }
  return std::nullopt;
}

std::string_view SelectionStatusName(SelectionStatus status) {
  for (const auto& [value, name] : kStatusNames) {
    if (value == status) return name;
  }
  return "";
}

const Visualization* Dashboard::FindVisualization(std::string_view key) const {
  const Visualization* found = nullptr;
  ForEachVisualization(*this, [&](const Chapter&, const Page&, const Visualization& v) {
    if (v.key == key) found = &v;
    return found != nullptr;
  });
  return found;
}

const Chapter* Dashboard::ChapterOfVisualization(std::string_view key) const {
  const Chapter* found = nullptr;
  ForEachVisualization(*this, [&](const Chapter& c, const Page&, const Visualization& v) {
    if (v.key == key) found = &c;
    return found != nullptr;
  });
  return found;
}

const Page* Dashboard::PageOfVisualization(std::string_view key) const {
  const Page* found = nullptr;
  ForEachVisualization(*this, [&](const Chapter&, const Page& p, const Visualization& v) {
    if (v.key == key) found = &p;
    return found != nullptr;
  });
  return found;
}

const Selector* Dashboard::FindSelector(std::string_view key) const {
  for (const auto& chapter : chapters) {
    for (const Selector* selector : SelectorsOfChapter(chapter.key)) {
      if (selector->key == key) return selector;
    }
  }
  return nullptr;
}

std::vector<const Selector*> Dashboard::SelectorsOfChapter(std::string_view chapter_key) const {
  std::vector<const Selector*> selectors;
  for (const auto& chapter : chapters) {
    if (chapter.key != chapter_key) continue;
    for (const auto& filter : chapter.filters) selectors.push_back(&filter);
    for (const auto& page : chapter.pages) {
      for (const auto& selector : page.selectors) selectors.push_back(&selector);
      for (const auto& visualization : page.visualizations) {
        if (visualization.as_filter) selectors.push_back(&*visualization.as_filter);
      }
    }
  }
  return selectors;
}

Dashboard ParseDashboard(const ObjectRecord& record) { return DashboardParser(record).Parse(); }

}  // namespace tessera::model
