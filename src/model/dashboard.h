// model/dashboard.h
//
// The typed view of a dashboard's canonical definition (model/bundle/dashboard.h): chapters ->
// pages -> visualizations, the selectors of every type (chapter filters, in-canvas selectors,
// visualizations used as filters, and the parameter-based variants of the element list, object
// replacement and value parameter), and the property that enables parallel rendering.
//
// ParseDashboard is total: a valid view, or Error(kInvalidInput) naming the dashboard and the
// path ("dashboard 'Sales Overview': chapters[0].pages[1].visualizations[2].dataset: required").
// Beyond the shape it checks what every reader relies on: keys unique across the dashboard,
// selector targets that are visualizations of the selector's chapter, a visualization-as-filter
// with at least one target, every visualization's dataset among the dashboard's datasets, and
// parameter operands of a visualization's metric limit that name a value parameter of its chapter.
//
// A parameter-based selector keeps its base type and has a parameter id: the definition's
// `parameterId` when present, else one derived from the dashboard id and the selector key, so it
// is the same on every read and every node.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "model/object.h"

namespace tessera::model {

enum class SelectorType {
  kAttributeElementList,
  kAttributeQualification,
  kMetricQualification,
  kObjectReplacement,
  kVisualizationAsFilter,
  kValueParameter,
};

enum class SelectionStatus { kIncluded, kExcluded, kUnfiltered };

enum class SelectorPlace { kChapterFilter, kPageSelector, kVisualization };

std::string_view SelectorTypeName(SelectorType type);  // "attribute_element_list", ...
std::optional<SelectorType> ParseSelectorType(std::string_view name);
std::string_view SelectionStatusName(SelectionStatus status);  // "included", ...

// A selector's answer: which member is used depends on the selector type.
struct Selection {
  SelectionStatus status = SelectionStatus::kUnfiltered;
  bool all_selected = false;          // "(All)" chosen: no restriction
  std::vector<std::string> elements;  // element ids "<attribute id>:<ID form value>"
  Json expression;                    // a qualification tree, or null
  std::vector<std::string> objects;   // object replacement: object ids
  std::vector<std::string> values;    // value parameter: values as text
};

struct DynamicSelection {
  bool first = true;  // first_elements, else last_elements
  int quantity = 0;
};

struct Selector {
  std::string key;  // a visualization-as-filter's key is its visualization's
  std::string name;
  SelectorType type = SelectorType::kAttributeElementList;
  SelectorPlace place = SelectorPlace::kChapterFilter;
  std::string chapter_key;
  std::string page_key;                  // "" for a chapter filter
  std::optional<std::string> source_id;  // attribute or metric
  std::string display_style;
  bool has_all_option = false;
  bool multi_selection_allowed = false;
  bool synchronized_across_chapter = false;
  bool selection_required = false;
  std::string parameter_id;          // "" unless parameter-based
  std::vector<std::string> targets;  // visualization keys; none on a chapter filter = its chapter
  std::vector<std::string> available_objects;
  std::optional<DynamicSelection> default_dynamic_selection;
  std::string data_type;  // value parameter
  std::optional<std::string> min_value, max_value;
  Selection saved;  // the selection the definition holds

  bool is_parameter_based() const { return !parameter_id.empty(); }
};

struct Visualization {
  std::string key;
  std::string name;
  std::string visualization_type;
  std::string dataset_id;
  std::vector<std::string> attribute_ids;
  std::vector<std::string> metric_ids;
  std::optional<Selector> as_filter;  // when the visualization filters others
  // A qualification on the aggregated rows, or null; its constants may be
  // {"type": "parameter", "key": <a value parameter selector of the chapter>}.
  Json metric_limit;
};

struct Page {
  std::string key;
  std::string name;
  std::vector<Visualization> visualizations;
  std::vector<Selector> selectors;
};

struct Chapter {
  std::string key;
  std::string name;
  std::vector<Selector> filters;
  std::vector<Page> pages;
};

struct Dashboard {
  std::string id;
  std::string name;
  bool parallel_rendering = false;
  std::vector<std::string> dataset_ids;
  std::vector<Chapter> chapters;

  const Visualization* FindVisualization(std::string_view key) const;
  const Chapter* ChapterOfVisualization(std::string_view key) const;
  const Page* PageOfVisualization(std::string_view key) const;
  // Chapter filters, page selectors and visualizations used as filters, by key.
  const Selector* FindSelector(std::string_view key) const;
  // Every selector of the chapter, in definition order: filters, then each page's selectors and
  // visualizations used as filters.
  std::vector<const Selector*> SelectorsOfChapter(std::string_view chapter_key) const;
};

Dashboard ParseDashboard(const ObjectRecord& record);

}  // namespace tessera::model
