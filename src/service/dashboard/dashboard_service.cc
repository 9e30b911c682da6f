#include "service/dashboard/dashboard_service.h"

#include <algorithm>
#include <map>
#include <optional>

#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"
#include "engine/cube_executor.h"
#include "engine/element_id.h"
#include "engine/metric_qualification.h"
#include "engine/qualification.h"
#include "engine/view_filter.h"
#include "model/object_types.h"
#include "model/rights.h"
#include "service/dashboard/visualization_address.h"

namespace tessera::service::dashboard {

namespace {

constexpr const char* kNoun = "Dashboard";
constexpr std::string_view kInstanceRecordKind = "dashboard";

std::string CanonicalDashboardId(const std::string& id) {
  std::optional<std::string> canonical = CanonicalObjectId(id);
  if (!canonical) throw Error(ErrorCode::kNotFound, "Dashboard '" + id + "' was not found");
  return *canonical;
}

std::string ResultKey(const std::string& visualization_key, uint64_t generation) {
  return visualization_key + "#" + std::to_string(generation);
}

// The visualizations pre-rendered for a state: its current page's, then the other pages' of its
// chapter in page order; a page's visualizations in their order on the page (the definition's,
// which is also the order the definition call lists them in).
std::vector<std::string> RenderOrder(const model::Dashboard& dashboard,
                                     const DashboardState& state) {
  std::vector<std::string> order;
  for (const auto& chapter : dashboard.chapters) {
    if (chapter.key != state.current_chapter) continue;
    for (const auto& page : chapter.pages) {
      if (page.key != state.current_page) continue;
      for (const auto& visualization : page.visualizations) order.push_back(visualization.key);
    }
    for (const auto& page : chapter.pages) {
      if (page.key == state.current_page) continue;
      for (const auto& visualization : page.visualizations) order.push_back(visualization.key);
    }
  }
  return order;
}

// The ID values of an attribute's elements in a dataset (ID order) with their display names.
struct NamedElement {
  std::string key;
  std::string name;
  engine::Cell id_value;
};

int DisplayForm(const engine::Dictionary& dictionary) {
  const int desc = dictionary.FormIndex("DESC");
  return desc >= 0 ? desc : 0;
}

NamedElement ElementOf(const engine::Dictionary& dictionary, uint32_t code) {
  return {engine::CellText(dictionary.Value(0, code)),
          engine::CellText(dictionary.Value(DisplayForm(dictionary), code)),
          dictionary.Value(0, code)};
}

int VisibleAttribute(const engine::Dataset& rows, const std::string& attribute_id) {
  const int index = rows.AttributeIndex(attribute_id);
  if (index < 0 || rows.attribute(index).hidden) return -1;
  return index;
}

// What suggested elements are asked of: the attribute, the element list selector they are for
// (none when asked by attribute alone), and the chapter whose other selectors narrow them.
struct ElementsTarget {
  const model::Selector* selector = nullptr;
  std::string attribute_id;
  std::string chapter_key;
};

ElementsTarget TargetOf(const model::Dashboard& dashboard, const DashboardState& state,
                        const ElementsQuery& query) {
  ElementsTarget target;
  target.attribute_id = query.target_id;
  target.chapter_key = state.current_chapter;
  if (query.filter_key.empty()) return target;
  target.selector = dashboard.FindSelector(query.filter_key);
  if (!target.selector || target.selector->type != model::SelectorType::kAttributeElementList ||
      !target.selector->source_id) {
    throw Error(ErrorCode::kInvalidInput,
                "filterKey: '" + query.filter_key + "' is not an element list selector");
  }
  target.attribute_id = *target.selector->source_id;
  if (!query.target_id.empty() && query.target_id != target.attribute_id) {
    throw Error(ErrorCode::kInvalidInput, "targetObjectId: '" + query.target_id +
                                              "' is not the source of '" + query.filter_key + "'");
  }
  target.chapter_key = target.selector->chapter_key;
  return target;
}

// The selections of the chapter's other selectors, as one condition on `rows`: a selector does
// not narrow its own list, nor do other selectors on the same attribute.
engine::RowFilter OtherSelections(const engine::Dataset& rows, const model::Dashboard& dashboard,
                                  const DashboardState& state, const ElementsTarget& target) {
  std::vector<engine::RowFilter> conditions;
  for (const model::Selector* other : dashboard.SelectorsOfChapter(target.chapter_key)) {
    if (target.selector && other->key == target.selector->key) continue;
    if (other->source_id && other->source_id == target.attribute_id) continue;
    const Json condition = RowConditionOf(*other, state.SelectionOf(*other));
    if (condition.is_null()) continue;
    try {
      conditions.push_back(engine::CompileViewFilter(rows, condition));
    } catch (const Error&) {
      // A condition on objects this dataset lacks does not reach its rows.
    }
  }
  return engine::RowFilter::Combine(engine::RowFilter::Kind::kAnd, std::move(conditions));
}

// The search of the query on `dictionary`, or nullopt when none of the forms it searches is one
// of this dataset's.
std::optional<engine::ElementSearch> SearchOf(const engine::Dictionary& dictionary,
                                              const ElementsQuery& query) {
  engine::ElementSearch search;
  search.pattern = query.pattern;
  search.prefix = query.prefix;
  for (const auto& form_id : query.form_ids) {
    for (size_t f = 0; f < dictionary.forms().size(); ++f) {
      if (engine::FormId(dictionary.forms()[f].name) == form_id) {
        search.forms.push_back(static_cast<int>(f));
      }
    }
  }
  if (!query.form_ids.empty() && search.forms.empty()) return std::nullopt;
  return search;
}

// Elements of several datasets, each once, ordered by ID value (the engine's own order of cells).
class MergedElements {
 public:
  void Add(const engine::Dictionary& dictionary, const std::vector<uint32_t>& codes,
           const std::string& attribute_id) {
    for (uint32_t code : codes) {
      NamedElement element = ElementOf(dictionary, code);
      elements_.emplace(
          element.id_value,
          SuggestedElement{engine::FormatElementId({attribute_id, element.key}), element.name});
    }
  }

  ElementsAnswer Page(int64_t offset, int64_t limit) && {
    ElementsAnswer answer;
    answer.total = static_cast<int64_t>(elements_.size());
    int64_t position = 0;
    for (auto& [value, element] : elements_) {
      if (position >= offset && (limit < 0 || position < offset + limit)) {
        answer.elements.push_back(std::move(element));
      }
      ++position;
    }
    return answer;
  }

 private:
  struct Before {
    bool operator()(const engine::Cell& a, const engine::Cell& b) const {
      return engine::CompareCells(a, b) < 0;
    }
  };
  std::map<engine::Cell, SuggestedElement, Before> elements_;
};

// Suggested elements asked of one state of a dashboard.
struct ElementsAsked {
  const model::Dashboard& dashboard;
  const DashboardState& state;
  const ElementsTarget target;
  const ElementsQuery& query;
};

// Adds the elements of `rows` the query asks for (those that match its search and that the
// chapter's other selections leave); false when `rows` does not show the target attribute.
bool AddSuggestedElements(const engine::Dataset& rows, const ElementsAsked& asked, ThreadPool* pool,
                          MergedElements& merged) {
  const int index = VisibleAttribute(rows, asked.target.attribute_id);
  if (index < 0) return false;
  const engine::Dictionary& dictionary = rows.attribute(index).dictionary;
  const std::optional<engine::ElementSearch> search = SearchOf(dictionary, asked.query);
  if (!search) return true;
  const engine::ElementList list = engine::ListElements(
      rows, index, OtherSelections(rows, asked.dashboard, asked.state, asked.target), *search,
      pool);
  merged.Add(dictionary, list.codes, asked.target.attribute_id);
  return true;
}

[[noreturn]] void ThrowNoDatasetHolds(const std::string& attribute_id) {
  throw Error(ErrorCode::kInvalidInput,
              "No dataset of the dashboard holds attribute '" + attribute_id + "'");
}

}  // namespace

DashboardService::DashboardService(object::ObjectService& objects,
                                   instance::DatasetDefinitionService& definitions,
                                   instance::InstanceStore& store,
                                   instance::SharedInstances& shared)
    : objects_(objects), definitions_(definitions), store_(store), shared_(shared) {}

std::shared_ptr<const DashboardModel> DashboardService::ModelOf(const session::Principal& principal,
                                                                const std::string& project_id,
                                                                model::Dashboard dashboard) {
  auto model = std::make_shared<DashboardModel>();
  model->project_id = project_id;
  for (const auto& dataset_id : dashboard.dataset_ids) {
    model->datasets.emplace(dataset_id,
                            definitions_.Resolve(principal, project_id, dataset_id,
                                                 instance::DatasetFilter::kReportOrCube));
  }
  model->dashboard = std::move(dashboard);
  return model;
}

std::shared_ptr<const DashboardModel> DashboardService::Load(const session::Principal& principal,
                                                             const std::string& project_id,
                                                             const std::string& raw_id) {
  const std::string id = CanonicalDashboardId(raw_id);
  std::optional<object::ObjectView> view;
  try {
    view = objects_.Get(principal, project_id, id, model::kTypeDocumentDefinition);
  } catch (const Error& error) {
    if (error.code() != ErrorCode::kNotFound) throw;
  }
  if (!view || view->record.definition.value("isDashboard", false) != true) {
    throw Error(ErrorCode::kNotFound,
                "Dashboard '" + id + "' was not found in project '" + project_id + "'");
  }
  session::RequireRights(principal, view->record, model::kRightRead);
  return ModelOf(principal, project_id, model::ParseDashboard(view->record));
}

std::shared_ptr<const engine::Dataset> DashboardService::CubeRowsOf(const DashboardModel& model,
                                                                    const std::string& dataset_id) {
  auto it = model.datasets.find(dataset_id);
  if (it == model.datasets.end() || !it->second.source_cube_id) return nullptr;
  try {
    return definitions_.BaseData(model.project_id, it->second);
  } catch (const Error& error) {
    if (error.code() == ErrorCode::kEngine) return nullptr;
    throw;
  }
}

std::shared_ptr<const engine::Dataset> DashboardService::RowsOf(instance::Instance* instance,
                                                                const DashboardModel& model,
                                                                const std::string& dataset_id) {
  const instance::ResolvedDataset& dataset = model.datasets.at(dataset_id);
  if (dataset.source_cube_id || !instance) return definitions_.BaseData(model.project_id, dataset);
  // A warehouse report's rows are queried once per instance and kept with its results.
  instance::ResultPtr holder = store_.Result(*instance, "~rows:" + dataset_id, [&] {
    auto result = std::make_shared<engine::ResultSet>();
    result->dataset = definitions_.BaseData(model.project_id, dataset);
    result->owns_dataset = true;
    return result;
  });
  return holder->dataset;
}

DashboardState DashboardService::SavedStateOf(const DashboardModel& model) {
  const DynamicElements dynamic = [this, &model](const std::string& attribute_id, bool first,
                                                 int quantity) {
    std::vector<std::string> elements;
    for (const auto& dataset_id : model.dashboard.dataset_ids) {
      auto rows = CubeRowsOf(model, dataset_id);
      const int index = rows ? VisibleAttribute(*rows, attribute_id) : -1;
      if (index < 0) continue;
      const engine::ElementList list =
          engine::ListElements(*rows, index, engine::RowFilter::All(), engine::ElementSearch{});
      const size_t count = std::min(list.codes.size(), static_cast<size_t>(std::max(0, quantity)));
      const size_t begin = first ? 0 : list.codes.size() - count;
      const engine::Dictionary& dictionary = rows->attribute(index).dictionary;
      for (size_t i = begin; i < begin + count; ++i) {
        elements.push_back(engine::FormatAttributeElementId(
            {attribute_id, engine::CellText(dictionary.Value(0, list.codes[i]))}));
      }
      break;
    }
    return elements;
  };
  return SavedState(model.dashboard, dynamic);
}

std::string DashboardService::ElementName(const DashboardModel& model,
                                          const std::string& element_id) {
  const size_t colon = element_id.find(':');
  if (colon == std::string::npos) return "";
  const std::string attribute_id = element_id.substr(0, colon);
  const std::string key = element_id.substr(colon + 1);
  for (const auto& dataset_id : model.dashboard.dataset_ids) {
    auto rows = CubeRowsOf(model, dataset_id);
    const int index = rows ? VisibleAttribute(*rows, attribute_id) : -1;
    if (index < 0) continue;
    const engine::Dictionary& dictionary = rows->attribute(index).dictionary;
    for (uint32_t code = 0; code < dictionary.size(); ++code) {
      if (engine::CellText(dictionary.Value(0, code)) == key) {
        return ElementOf(dictionary, code).name;
      }
    }
  }
  return key;
}

FilterContext DashboardService::ContextOf(const DashboardModel& model,
                                          const DashboardState& state) {
  FilterContext context{model.dashboard, state, {}, {}, {}};
  context.is_attribute = [&model](const std::string& attribute_id) {
    for (const auto& [id, dataset] : model.datasets) {
      if (dataset.model && dataset.model->has_attribute(attribute_id)) return true;
    }
    return false;
  };
  context.element_by_name = [this, &model](const std::string& attribute_id,
                                           const std::string& name) -> std::optional<std::string> {
    for (const auto& dataset_id : model.dashboard.dataset_ids) {
      auto rows = CubeRowsOf(model, dataset_id);
      const int index = rows ? VisibleAttribute(*rows, attribute_id) : -1;
      if (index < 0) continue;
      const engine::Dictionary& dictionary = rows->attribute(index).dictionary;
      std::optional<std::string> found;
      for (uint32_t code = 0; code < dictionary.size(); ++code) {
        NamedElement element = ElementOf(dictionary, code);
        if (element.name != name) continue;
        if (found) {
          throw Error(ErrorCode::kInvalidInput,
                      "Several elements are named '" + name + "'; give the element's id");
        }
        found = element.key;
      }
      return found;
    }
    return std::nullopt;
  };
  context.check_expression = [this, &model](const model::Selector& selector, const Json& given) {
    const Json expression = SimplifiedExpression(given);
    if (selector.type == model::SelectorType::kMetricQualification) {
      engine::CompileMetricQualification(expression, {selector.source_id.value_or("")});
      return;
    }
    std::string dataset_id;
    if (selector.type == model::SelectorType::kVisualizationAsFilter) {
      dataset_id = model.dashboard.FindVisualization(selector.key)->dataset_id;
    }
    for (const auto& candidate : model.dashboard.dataset_ids) {
      if (!dataset_id.empty() && candidate != dataset_id) continue;
      auto rows = CubeRowsOf(model, candidate);
      if (!rows) continue;
      if (selector.source_id && VisibleAttribute(*rows, *selector.source_id) < 0) continue;
      engine::CompileViewFilter(*rows, expression);
      return;
    }
  };
  return context;
}

DashboardView DashboardService::Definition(const session::Principal& principal,
                                           const std::string& project_id, const std::string& id) {
  auto model = Load(principal, project_id, id);
  auto state = std::make_shared<const DashboardState>(SavedStateOf(*model));
  return {model, state, nullptr};
}

std::string DashboardService::Create(const instance::InstanceCaller& caller, const std::string& id,
                                     const DashboardCreateOptions& options) {
  return CreateFrom(caller, Load(caller.principal, caller.project_id, id), options);
}

std::string DashboardService::CreateInMemory(const instance::InstanceCaller& caller,
                                             const std::vector<std::string>& object_ids,
                                             const DashboardCreateOptions& options) {
  if (object_ids.empty()) {
    throw Error(ErrorCode::kInvalidInput, "objects: name one report or cube at least");
  }
  return CreateFrom(caller, InMemoryModel(caller.principal, caller.project_id, object_ids),
                    options);
}

std::shared_ptr<const DashboardModel> DashboardService::InMemoryModel(
    const session::Principal& principal, const std::string& project_id,
    const std::vector<std::string>& object_ids) {
  model::Dashboard dashboard;
  dashboard.id = kInMemoryDashboardId;
  dashboard.name = "New Dashboard";
  model::Chapter chapter{"K1", "Chapter 1", {}, {}};
  model::Page page{"K2", "Page 1", {}, {}};
  for (size_t i = 0; i < object_ids.size(); ++i) {
    const instance::DatasetDefinition definition = definitions_.Get(
        principal, project_id, object_ids[i], instance::DatasetFilter::kReportOrCube);
    if (std::find(dashboard.dataset_ids.begin(), dashboard.dataset_ids.end(), definition.id) ==
        dashboard.dataset_ids.end()) {
      dashboard.dataset_ids.push_back(definition.id);
    }
    model::Visualization visualization;
    visualization.key = "W" + std::to_string(i + 1);
    visualization.name = definition.name;
    visualization.visualization_type = "grid";
    visualization.dataset_id = definition.id;
    for (const auto& attribute : definition.attributes) {
      visualization.attribute_ids.push_back(attribute.id);
    }
    for (const auto& metric : definition.metrics) visualization.metric_ids.push_back(metric.id);
    page.visualizations.push_back(std::move(visualization));
  }
  chapter.pages.push_back(std::move(page));
  dashboard.chapters.push_back(std::move(chapter));
  return ModelOf(principal, project_id, std::move(dashboard));
}

std::string DashboardService::CreateFrom(const instance::InstanceCaller& caller,
                                         std::shared_ptr<const DashboardModel> model,
                                         const DashboardCreateOptions& options) {
  if (options.bookmark_id) {
    throw Error(ErrorCode::kNotFound, "Bookmark '" + *options.bookmark_id + "' was not found");
  }
  DashboardState state = SavedStateOf(*model);
  if (options.target_page_key) {
    bool found = false;
    for (const auto& chapter : model->dashboard.chapters) {
      for (const auto& page : chapter.pages) {
        if (page.key != *options.target_page_key) continue;
        state.current_chapter = chapter.key;
        state.current_page = page.key;
        found = true;
      }
    }
    if (!found) {
      throw Error(ErrorCode::kInvalidInput,
                  "linkingInfo.targetPageKey: no page '" + *options.target_page_key + "'");
    }
  }
  const std::optional<std::vector<FilterEntry>>& filters = options.filters.value();
  const bool has_filters = filters.has_value();
  if (has_filters) {
    state = ApplyFilterUpdates(
        model->dashboard, state,
        ResolveFilterEntries(*filters, ContextOf(*model, state), options.ignore_missing_filter));
  }
  const bool property = model->dashboard.parallel_rendering;
  if (!options.resolve_only) {
    state.mode = DashboardState::Mode::kExecuted;
    state.parallel_rendering = options.enable_parallel_rendering && property;
  } else if (has_filters && !options.apply_filter_resolve_only) {
    state.mode = DashboardState::Mode::kExecuted;
    state.parallel_rendering = options.parallel_rendering_after_manipulation && property;
  } else {
    state.mode = DashboardState::Mode::kResolved;
    state.parallel_rendering = false;
  }
  const std::string object_id = model->dashboard.id;
  auto definition =
      std::make_shared<DashboardInstance>(std::move(model), options.persist_view_state);
  const DashboardInstance& held = *definition;
  std::shared_ptr<instance::Instance> instance =
      store_.Create({caller.session_id, object_id}, std::move(definition));
  try {
    Publish(instance, held, std::move(state));
  } catch (...) {
    store_.Remove(*instance);
    throw;
  }
  return instance->id();
}

DashboardService::Opened DashboardService::Open(const instance::InstanceCaller& caller,
                                                const std::string& id,
                                                const std::string& instance_id) {
  const instance::InstanceOwner owner{caller.session_id, CanonicalDashboardId(id)};
  std::shared_ptr<instance::Instance> instance;
  try {
    instance = store_.Find(owner, instance_id, kNoun);
    if (!shared_.IsCurrent(*instance)) {
      store_.Remove(*instance);
      instance = nullptr;
    }
  } catch (const Error& error) {
    if (error.code() != ErrorCode::kNotFound) throw;
  }
  if (!instance) instance = Rebuild(caller, owner, instance_id);
  if (!instance) {
    throw Error(ErrorCode::kNotFound, std::string(kNoun) + " instance '" + instance_id +
                                          "' was not found or has expired.");
  }
  const auto* definition = dynamic_cast<const DashboardInstance*>(&instance->definition());
  if (!definition ||
      (!caller.project_id.empty() && caller.project_id != definition->project_id())) {
    throw Error(ErrorCode::kNotFound, std::string(kNoun) + " instance '" + instance_id +
                                          "' was not found or has expired.");
  }
  return {std::move(instance), definition};
}

DashboardView DashboardService::InstanceDefinition(const instance::InstanceCaller& caller,
                                                   const std::string& id,
                                                   const std::string& instance_id) {
  Opened opened = Open(caller, id, instance_id);
  auto model = std::shared_ptr<const DashboardModel>(opened.instance, &opened.definition->model());
  return {model, opened.definition->Current().state, opened.instance};
}

std::shared_ptr<instance::Instance> DashboardService::Rebuild(
    const instance::InstanceCaller& caller, const instance::InstanceOwner& owner,
    const std::string& instance_id) {
  std::optional<storage::InstanceRecord> record =
      shared_.Find(owner, instance_id, kInstanceRecordKind);
  if (!record || (!caller.project_id.empty() && caller.project_id != record->project_id)) {
    return nullptr;
  }
  const Json& data = record->data;
  std::shared_ptr<const DashboardModel> model =
      owner.object_id == kInMemoryDashboardId
          ? InMemoryModel(caller.principal, record->project_id,
                          data.at("objects").get<std::vector<std::string>>())
          : Load(caller.principal, record->project_id, owner.object_id);
  auto definition = std::make_shared<DashboardInstance>(std::move(model),
                                                        data.at("persistViewState").get<bool>());
  DashboardState state = StateFromJson(data.at("state"));
  // Readers who find the instance before its render starts see its state at once.
  definition->Publish({std::make_shared<const DashboardState>(state), nullptr});
  const DashboardInstance& held = *definition;
  std::shared_ptr<instance::Instance> instance =
      store_.Adopt(record->id, owner, std::move(definition));
  if (&instance->definition() != &held) return instance;  // rebuilt meanwhile by another request
  shared_.Adopted(*instance, *record);
  std::lock_guard lock(held.manipulation());
  Publish(instance, held, std::move(state), /*record=*/false);
  return instance;
}

void DashboardService::Save(instance::Instance& instance, const DashboardInstance& definition,
                            const DashboardState& state) {
  Json data = {{"persistViewState", definition.persist_view_state()},
               {"state", StateToJson(state)}};
  const model::Dashboard& dashboard = definition.model().dashboard;
  if (dashboard.id == kInMemoryDashboardId) {
    Json objects = Json::array();
    for (const auto& chapter : dashboard.chapters) {
      for (const auto& page : chapter.pages) {
        for (const auto& visualization : page.visualizations) {
          objects.push_back(visualization.dataset_id);
        }
      }
    }
    data["objects"] = std::move(objects);
  }
  if (instance.recorded_revision().load() == 0) {
    shared_.Create(instance, definition.project_id(), kInstanceRecordKind, std::move(data));
  } else {
    shared_.Revise(instance, std::move(data));
  }
}

void DashboardService::Publish(const std::shared_ptr<instance::Instance>& instance,
                               const DashboardInstance& definition, DashboardState state,
                               bool record) {
  const DashboardInstance::Snapshot previous = definition.Current();
  state.generation = previous.state ? previous.state->generation + 1 : 0;
  if (record) Save(*instance, definition, state);
  auto published = std::make_shared<const DashboardState>(std::move(state));
  std::shared_ptr<RenderRun> run;
  if (published->mode == DashboardState::Mode::kExecuted) {
    run = StartRender(instance, definition, published);
  }
  definition.Publish({published, run});
  if (previous.state) {
    for (const auto& chapter : definition.model().dashboard.chapters) {
      for (const auto& page : chapter.pages) {
        for (const auto& visualization : page.visualizations) {
          store_.Drop(*instance, ResultKey(visualization.key, previous.state->generation));
        }
      }
    }
  }
}

void DashboardService::set_pool(ThreadPool* pool, size_t render_slots) {
  pool_ = pool;
  render_slots_ = nullptr;
  if (pool != nullptr) {
    render_slots_ =
        std::make_shared<RenderSlots>(*pool, render_slots > 0 ? render_slots : pool->size());
  }
}

std::shared_ptr<RenderRun> DashboardService::StartRender(
    const std::shared_ptr<instance::Instance>& instance, const DashboardInstance& definition,
    std::shared_ptr<const DashboardState> state) {
  std::weak_ptr<instance::Instance> weak = instance;
  auto compute = [this, weak, &definition, state](const std::string& key) {
    std::shared_ptr<instance::Instance> alive = weak.lock();
    if (!alive) return;
    ComputeVisualization(*alive, definition, *state, key);
  };
  auto run = std::make_shared<RenderRun>(RenderOrder(definition.model().dashboard, *state),
                                         state->parallel_rendering, std::move(compute), hooks_);
  run->Start(render_slots_);
  return run;
}

instance::ResultPtr DashboardService::ComputeVisualization(instance::Instance& instance,
                                                           const DashboardInstance& definition,
                                                           const DashboardState& state,
                                                           const std::string& key) {
  const DashboardModel& model = definition.model();
  instance::ResultPtr result = store_.Result(instance, ResultKey(key, state.generation), [&] {
    const model::Visualization* visualization = model.dashboard.FindVisualization(key);
    const instance::ResolvedDataset& dataset = model.datasets.at(visualization->dataset_id);
    std::shared_ptr<const engine::Dataset> rows =
        RowsOf(&instance, model, visualization->dataset_id);
    const VisualizationPlan plan =
        PlanVisualization(model.dashboard, state, *visualization, dataset);
    engine::CubeQuery query = QueryOfPlan(plan, dataset, *rows);
    query.deadline = std::chrono::steady_clock::now() + query_budget_;
    const std::shared_ptr<const engine::RollupSet> rollups = definitions_.RollupsOf(*rows);
    auto answer = std::make_shared<engine::ResultSet>(
        engine::ExecuteCubeQuery(rows, rollups.get(), query, pool_));
    return instance::ResultPtr(std::move(answer));
  });
  const DashboardInstance::Snapshot current = definition.Current();
  if (current.state && current.state->generation != state.generation) {
    store_.Drop(instance, ResultKey(key, state.generation));  // a late result of an old state
  }
  return result;
}

VisualizationAnswer DashboardService::Visualization(const instance::InstanceCaller& caller,
                                                    const std::string& id,
                                                    const std::string& instance_id,
                                                    const std::string& chapter_key,
                                                    const std::string& visualization_key) {
  Opened opened = Open(caller, id, instance_id);
  const DashboardInstance& definition = *opened.definition;
  const DashboardModel& model = definition.model();
  CheckVisualizationAddress(model.dashboard, chapter_key, visualization_key);
  DashboardInstance::Snapshot snapshot = definition.Current();
  if (snapshot.state->mode == DashboardState::Mode::kResolved) {
    try {
      std::lock_guard lock(definition.manipulation());
      snapshot = definition.Current();
      if (snapshot.state->mode == DashboardState::Mode::kResolved) {
        DashboardState executed = *snapshot.state;
        executed.mode = DashboardState::Mode::kExecuted;
        Publish(opened.instance, definition, std::move(executed));
        snapshot = definition.Current();
      }
    } catch (const Error& error) {
      // Another node changed the instance at the same moment (executed it for a visualization
      // of its own, most likely): its state is the instance's now, so read the visualization
      // there. A reader never gets the 409 of a change it did not ask for.
      if (error.code() != ErrorCode::kAlreadyExists) throw;
      return Visualization(caller, id, instance_id, chapter_key, visualization_key);
    }
  }
  const std::vector<std::string> order = RenderOrder(model.dashboard, *snapshot.state);
  if (snapshot.run && std::find(order.begin(), order.end(), visualization_key) != order.end()) {
    snapshot.run->Await(visualization_key);
  }
  VisualizationAnswer answer;
  answer.keep_alive = opened.instance;
  answer.model = std::shared_ptr<const DashboardModel>(opened.instance, &model);
  answer.visualization = model.dashboard.FindVisualization(visualization_key);
  answer.plan = PlanVisualization(model.dashboard, *snapshot.state, *answer.visualization,
                                  model.datasets.at(answer.visualization->dataset_id));
  answer.result =
      ComputeVisualization(*opened.instance, definition, *snapshot.state, visualization_key);
  return answer;
}

void DashboardService::SetFilters(const instance::InstanceCaller& caller, const std::string& id,
                                  const std::string& instance_id,
                                  const Parsed<std::vector<FilterEntry>>& entries,
                                  const DashboardFilterOptions& options) {
  Opened opened = Open(caller, id, instance_id);
  const DashboardInstance& definition = *opened.definition;
  std::lock_guard lock(definition.manipulation());
  const DashboardState current = *definition.Current().state;
  const DashboardModel& model = definition.model();
  DashboardState next =
      ApplyFilterUpdates(model.dashboard, current,
                         ResolveFilterEntries(entries.value(), ContextOf(model, current),
                                              options.ignore_missing_filter));
  const bool property = model.dashboard.parallel_rendering;
  if (current.mode == DashboardState::Mode::kExecuted || options.execute) {
    next.mode = DashboardState::Mode::kExecuted;
    next.parallel_rendering = options.parallel_rendering_after_manipulation && property;
  }
  Publish(opened.instance, definition, std::move(next));
}

void DashboardService::Refresh(const instance::InstanceCaller& caller, const std::string& id,
                               const std::string& instance_id) {
  Opened opened = Open(caller, id, instance_id);
  const DashboardInstance& definition = *opened.definition;
  std::lock_guard lock(definition.manipulation());
  DashboardState next = *definition.Current().state;
  next.mode = DashboardState::Mode::kExecuted;
  next.parallel_rendering = false;
  const DashboardModel& model = definition.model();
  for (const auto& dataset_id : model.dashboard.dataset_ids) {
    store_.Drop(*opened.instance, "~rows:" + dataset_id);
  }
  Publish(opened.instance, definition, std::move(next));
}

void DashboardService::AnswerPrompts(const instance::InstanceCaller& caller, const std::string& id,
                                     const std::string& instance_id) {
  Opened opened = Open(caller, id, instance_id);
  const DashboardInstance& definition = *opened.definition;
  std::lock_guard lock(definition.manipulation());
  DashboardState next = *definition.Current().state;
  if (next.mode != DashboardState::Mode::kExecuted) return;
  next.parallel_rendering = false;
  Publish(opened.instance, definition, std::move(next));
}

void DashboardService::Delete(const instance::InstanceCaller& caller, const std::string& id,
                              const std::string& instance_id) {
  Opened opened = Open(caller, id, instance_id);
  store_.Remove(*opened.instance);
  shared_.Remove(opened.instance->id());
}

DashboardInstanceStatus DashboardService::Status(const instance::InstanceCaller& caller,
                                                 const std::string& id,
                                                 const std::string& instance_id) {
  Opened opened = Open(caller, id, instance_id);
  const DashboardInstance::Snapshot snapshot = opened.definition->Current();
  return {opened.definition->model().dashboard.id, opened.instance->id(),
          snapshot.state->mode == DashboardState::Mode::kResolved,
          snapshot.state->parallel_rendering};
}

ElementsAnswer DashboardService::Elements(const instance::InstanceCaller& caller,
                                          const std::string& id, const std::string& instance_id,
                                          const ElementsQuery& query) {
  Opened opened = Open(caller, id, instance_id);
  const DashboardModel& model = opened.definition->model();
  const std::shared_ptr<const DashboardState> state = opened.definition->Current().state;
  const ElementsAsked asked{model.dashboard, *state, TargetOf(model.dashboard, *state, query),
                            query};
  MergedElements merged;
  bool is_held = false;
  for (const auto& dataset_id : model.dashboard.dataset_ids) {
    const auto rows = RowsOf(opened.instance.get(), model, dataset_id);
    is_held = AddSuggestedElements(*rows, asked, pool_, merged) || is_held;
  }
  if (!is_held) ThrowNoDatasetHolds(asked.target.attribute_id);
  return std::move(merged).Page(query.offset, query.limit);
}

}  // namespace tessera::service::dashboard
