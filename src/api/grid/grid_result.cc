#include "api/grid/grid_result.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "api/dataset/definition_json.h"
#include "core/json_writer.h"
#include "engine/dictionary.h"
#include "engine/element_id.h"

namespace tessera::api::grid {

namespace {

void WriteText(JsonWriter& out, std::string_view key, std::string_view value) {
  out.Key(key);
  out.String(value);
}

constexpr const char* kTemplateMetricsId = "00000000000000000000000000000000";

struct PageRange {
  size_t begin = 0;
  size_t end = 0;
};

PageRange RangeOf(const engine::ResultSet& result, const GridPage& page) {
  const size_t begin = std::min(page.offset, result.row_count);
  const size_t available = result.row_count - begin;
  const size_t count =
      page.limit < 0 ? available : std::min(available, static_cast<size_t>(page.limit));
  return {begin, begin + count};
}

void WritePaging(JsonWriter& out, const engine::ResultSet& result, const GridPage& page,
                 const PageRange& range) {
  const size_t current = range.end - range.begin;
  out.Key("paging");
  out.BeginObject();
  out.Key("total");
  out.Int(static_cast<int64_t>(result.row_count));
  out.Key("current");
  out.Int(static_cast<int64_t>(current));
  out.Key("offset");
  out.Int(static_cast<int64_t>(page.offset));
  out.Key("limit");
  out.Int(page.limit);
  out.Key("prev");
  if (page.offset == 0) {
    out.Null();
  } else {
    const size_t step = page.limit < 0 ? page.offset : static_cast<size_t>(page.limit);
    out.Int(static_cast<int64_t>(page.offset > step ? page.offset - step : 0));
  }
  out.Key("next");
  if (range.end < result.row_count && current > 0) {
    out.Int(static_cast<int64_t>(range.end));
  } else {
    out.Null();
  }
  out.EndObject();
}

// How one grid attribute's displayed forms read from the result's dictionary.
struct AttributeReader {
  const service::instance::AttributeDefinition* attribute = nullptr;
  const engine::Dictionary* dictionary = nullptr;
  const std::vector<uint32_t>* codes = nullptr;
  std::vector<int> forms;  // dictionary form per displayed form (-1: none)
  int id_form = 0;

  std::string FormValue(size_t form, uint32_t code) const {
    return forms[form] < 0 ? std::string() : engine::CellText(dictionary->Value(forms[form], code));
  }
  std::string ElementId(uint32_t code) const {
    return engine::FormatElementId(
        {attribute->id, engine::CellText(dictionary->Value(id_form, code))});
  }
};

std::vector<AttributeReader> ReadersOf(const service::instance::InstanceGrid& grid,
                                       const engine::ResultSet& result) {
  std::vector<AttributeReader> readers;
  for (size_t j = 0; j < grid.attributes.size(); ++j) {
    AttributeReader reader;
    reader.attribute = &grid.attributes[j];
    reader.dictionary = &result.dataset->attribute(result.attributes[j]).dictionary;
    reader.codes = &result.codes[j];
    for (const auto& form : grid.attributes[j].forms) {
      reader.forms.push_back(reader.dictionary->FormIndex(form.name));
    }
    readers.push_back(std::move(reader));
  }
  return readers;
}

void WriteOptional(JsonWriter& out, const std::optional<double>& value) {
  if (value) {
    out.Double(*value);
  } else {
    out.Null();
  }
}

void WriteMetricDefinition(JsonWriter& out, const service::instance::GridMetric& metric,
                           const engine::ResultSet& result, size_t index, bool v2) {
  const engine::ResultSet::Range& range = result.ranges[index];
  out.BeginObject();
  out.Key("name");
  out.String(metric.metric.name);
  out.Key("id");
  out.String(metric.metric.id);
  out.Key("type");
  out.String(v2 ? "metric" : "Metric");
  out.Key("min");
  WriteOptional(out, range.min);
  out.Key("max");
  WriteOptional(out, range.max);
  if (v2) {
    out.Key("dataType");
    out.String("double");
  }
  out.Key("numberFormatting");
  out.Raw(metric.format.Describe().dump());
  out.EndObject();
}

std::string FormattedValue(const service::instance::GridMetric& metric,
                           const std::optional<double>& value) {
  return value ? metric.format.Format(*value) : std::string();
}

// ---- v2 ----

// The distinct elements of one attribute on a page, in order of first appearance.
class PageElements {
 public:
  PageElements(const AttributeReader& reader, size_t page_rows)
      : dense_(reader.dictionary->size() <= 16 * page_rows + 4096) {
    if (dense_) slot_.assign(reader.dictionary->size(), -1);
  }

  int32_t IndexOf(uint32_t code) {
    if (dense_) {
      int32_t& slot = slot_[code];
      if (slot < 0) {
        slot = static_cast<int32_t>(codes_.size());
        codes_.push_back(code);
      }
      return slot;
    }
    auto [it, inserted] = sparse_.emplace(code, static_cast<int32_t>(codes_.size()));
    if (inserted) codes_.push_back(code);
    return it->second;
  }
  const std::vector<uint32_t>& codes() const { return codes_; }

 private:
  bool dense_;
  std::vector<int32_t> slot_;
  std::unordered_map<uint32_t, int32_t> sparse_;
  std::vector<uint32_t> codes_;
};

void WriteAttributeV2(JsonWriter& out, const AttributeReader& reader, const PageElements& page) {
  const service::instance::AttributeDefinition& attribute = *reader.attribute;
  out.BeginObject();
  out.Key("name");
  out.String(attribute.name);
  out.Key("id");
  out.String(attribute.id);
  out.Key("type");
  out.String("attribute");
  out.Key("forms");
  out.BeginArray();
  for (const auto& form : attribute.forms) out.Raw(dataset::FormJsonV2(form).dump());
  out.EndArray();
  out.Key("elements");
  out.BeginArray();
  for (uint32_t code : page.codes()) {
    out.BeginObject();
    out.Key("formValues");
    out.BeginArray();
    for (size_t f = 0; f < reader.forms.size(); ++f) out.String(reader.FormValue(f, code));
    out.EndArray();
    out.Key("id");
    out.String(reader.ElementId(code));
    out.EndObject();
  }
  out.EndArray();
  out.EndObject();
}

void WriteGridDefinitionV2(JsonWriter& out, const service::instance::InstanceGrid& grid,
                           const engine::ResultSet& result,
                           const std::vector<AttributeReader>& readers,
                           const std::vector<PageElements>& elements) {
  out.Key("definition");
  out.BeginObject();
  out.Key("grid");
  out.BeginObject();
  out.Key("crossTab");
  out.Bool(false);
  if (!grid.metrics.empty()) {
    out.Key("metricsPosition");
    out.Raw(R"({"axis":"columns","index":0})");
  }
  out.Key("rows");
  out.BeginArray();
  for (size_t j = 0; j < readers.size(); ++j) WriteAttributeV2(out, readers[j], elements[j]);
  out.EndArray();
  out.Key("columns");
  out.BeginArray();
  if (!grid.metrics.empty()) {
    out.BeginObject();
    out.Key("name");
    out.String("Metrics");
    out.Key("id");
    out.String(kTemplateMetricsId);
    out.Key("type");
    out.String("templateMetrics");
    out.Key("elements");
    out.BeginArray();
    for (size_t m = 0; m < grid.metrics.size(); ++m) {
      WriteMetricDefinition(out, grid.metrics[m], result, m, true);
    }
    out.EndArray();
    out.EndObject();
  }
  out.EndArray();
  out.Key("pageBy");
  out.BeginArray();
  out.EndArray();
  out.Key("sorting");
  out.Raw(grid.sorting.dump());
  out.Key("subtotals");
  out.BeginObject();
  out.Key("defined");
  out.Bool(false);
  out.Key("visible");
  out.Bool(grid.subtotals_visible);
  out.EndObject();
  out.Key("thresholds");
  out.BeginArray();
  out.EndArray();
  out.EndObject();
  out.EndObject();
}

// One row of the page per array, one cell per metric, written by `cell(metric, row)`.
template <typename WriteCell>
void WriteMetricRows(JsonWriter& out, std::string_view key, const PageRange& range, size_t metrics,
                     const WriteCell& cell) {
  out.Key(key);
  out.BeginArray();
  for (size_t r = range.begin; r < range.end; ++r) {
    out.BeginArray();
    for (size_t m = 0; m < metrics; ++m) cell(m, r);
    out.EndArray();
  }
  out.EndArray();
}

void WriteMetricValuesV2(JsonWriter& out, const service::instance::InstanceGrid& grid,
                         const engine::ResultSet& result, const PageRange& range,
                         const MetricValueParts& parts) {
  const size_t metrics = grid.metrics.size();
  out.Key("metricValues");
  out.BeginObject();
  if (parts.raw) {
    WriteMetricRows(out, "raw", range, metrics,
                    [&](size_t m, size_t r) { WriteOptional(out, result.Value(m, r)); });
  }
  if (parts.formatted) {
    WriteMetricRows(out, "formatted", range, metrics, [&](size_t m, size_t r) {
      out.String(FormattedValue(grid.metrics[m], result.Value(m, r)));
    });
  }
  if (parts.extras) {
    WriteMetricRows(out, "extras", range, metrics, [&](size_t, size_t) { out.Raw("{}"); });
  }
  out.EndObject();
}

// ---- v1 ----

void WriteElementV1(JsonWriter& out, const AttributeReader& reader, size_t attribute_index,
                    uint32_t code) {
  out.Key("element");
  out.BeginObject();
  out.Key("attributeIndex");
  out.Int(static_cast<int64_t>(attribute_index));
  out.Key("formValues");
  out.BeginObject();
  std::string name;
  for (size_t f = 0; f < reader.forms.size(); ++f) {
    std::string value = reader.FormValue(f, code);
    if (f > 0) name += ' ';
    name += value;
    out.Key(reader.attribute->forms[f].name);
    out.String(value);
  }
  out.EndObject();
  out.Key("name");
  out.String(name);
  out.Key("id");
  out.String(reader.ElementId(code));
  out.EndObject();
}

void WriteRowMetricsV1(JsonWriter& out, const service::instance::InstanceGrid& grid,
                       const engine::ResultSet& result, size_t row) {
  out.Key("metrics");
  out.BeginObject();
  for (size_t m = 0; m < grid.metrics.size(); ++m) {
    const std::optional<double> value = result.Value(m, row);
    out.Key(grid.metrics[m].metric.name);
    out.BeginObject();
    out.Key("rv");
    WriteOptional(out, value);
    out.Key("fv");
    out.String(FormattedValue(grid.metrics[m], value));
    out.Key("mi");
    out.Int(static_cast<int64_t>(m));
    out.EndObject();
  }
  out.EndObject();
}

// Whether rows a and b hold the same elements in attributes [0, depth].
bool SamePrefix(const std::vector<AttributeReader>& readers, size_t a, size_t b, size_t depth) {
  for (size_t d = 0; d <= depth; ++d) {
    if ((*readers[d].codes)[a] != (*readers[d].codes)[b]) return false;
  }
  return true;
}

// Writes the rows of `range` as nested nodes: a node per run of rows sharing the elements of
// attributes [0, depth].
void WriteTreeV1(JsonWriter& out, const service::instance::InstanceGrid& grid,
                 const engine::ResultSet& result, const std::vector<AttributeReader>& readers,
                 const PageRange& range) {
  const size_t depth_count = readers.size();
  const size_t last = range.end - 1;
  // The first row of the last run at each depth: a node opened there may continue on the next
  // page.
  std::vector<size_t> last_run_start(depth_count, range.begin);
  for (size_t d = 0; d < depth_count; ++d) {
    size_t r = last;
    while (r > range.begin && SamePrefix(readers, r - 1, last, d)) --r;
    last_run_start[d] = r;
  }
  size_t open_depth = 0;  // non-leaf nodes open
  for (size_t r = range.begin; r < range.end; ++r) {
    size_t first_new = 0;
    if (r > range.begin) {
      while (first_new < depth_count && SamePrefix(readers, r - 1, r, first_new)) ++first_new;
    }
    while (open_depth > first_new) {
      out.EndArray();
      out.EndObject();
      --open_depth;
    }
    for (size_t d = first_new; d < depth_count; ++d) {
      out.BeginObject();
      out.Key("depth");
      out.Int(static_cast<int64_t>(d));
      WriteElementV1(out, readers[d], d, (*readers[d].codes)[r]);
      if (d + 1 == depth_count) {
        WriteRowMetricsV1(out, grid, result, r);
        out.EndObject();
        continue;
      }
      const bool continues_before =
          r == range.begin && range.begin > 0 && SamePrefix(readers, r - 1, r, d);
      const bool continues_after = r == last_run_start[d] && range.end < result.row_count &&
                                   SamePrefix(readers, last, range.end, d);
      out.Key("isPartial");
      out.Bool(continues_before || continues_after);
      out.Key("children");
      out.BeginArray();
      ++open_depth;
    }
  }
  while (open_depth > 0) {
    out.EndArray();
    out.EndObject();
    --open_depth;
  }
}

void WriteRootV1(JsonWriter& out, const service::instance::InstanceGrid& grid,
                 const engine::ResultSet& result, const std::vector<AttributeReader>& readers,
                 const PageRange& range) {
  out.Key("root");
  out.BeginObject();
  out.Key("isPartial");
  out.Bool(range.begin > 0 || range.end < result.row_count);
  if (readers.empty()) {
    if (range.end > range.begin) WriteRowMetricsV1(out, grid, result, range.begin);
  } else {
    out.Key("children");
    out.BeginArray();
    if (range.end > range.begin) WriteTreeV1(out, grid, result, readers, range);
    out.EndArray();
  }
  out.EndObject();
}

void WriteHeaderV1(JsonWriter& out, const GridHeader& header, const KeepKey& keep) {
  const auto text = [&](std::string_view key, const std::string& value) {
    if (keep(key)) WriteText(out, key, value);
  };
  text("id", header.id);
  text("name", header.name);
  if (keep("status")) {
    out.Key("status");
    out.Int(header.status);
  }
  text("instanceId", header.instance_id);
}

void WriteSummaries(JsonWriter& out, const VisualizationHeader& visualization) {
  WriteText(out, "viewFilterSummary", visualization.view_filter_summary);
  WriteText(out, "elementFilterSummary", visualization.element_filter_summary);
  WriteText(out, "metricLimitSummary", visualization.metric_limit_summary);
  WriteText(out, "templateLimitSummary", "");
}

void WriteHeaderOf(JsonWriter& out, const GridHeader& header, const GridFormat& format) {
  if (header.visualization) {
    WriteText(out, "key", header.visualization->key);
    WriteText(out, "name", header.visualization->name);
    if (format.version == ApiVersion::kV2) {
      WriteText(out, "visualizationType", header.visualization->visualization_type);
    }
  } else if (format.version == ApiVersion::kV1) {
    WriteHeaderV1(out, header, format.keep);
  } else {
    WriteText(out, "name", header.name);
    WriteText(out, "id", header.id);
    WriteText(out, "instanceId", header.instance_id);
    out.Key("status");
    out.Int(header.status);
  }
}

// v1: `result` holds the definition and the page as a tree of elements.
void WriteResultV1(JsonWriter& out, const GridHeader& header,
                   const service::instance::InstanceGrid& grid, const engine::ResultSet& result,
                   const GridPage& page, const PageRange& range,
                   const std::vector<AttributeReader>& readers, const KeepKey& keep) {
  if (keep("result")) {
    out.Key("result");
    out.BeginObject();
    out.Key("definition");
    out.BeginObject();
    out.Key("attributes");
    out.BeginArray();
    for (const auto& attribute : grid.attributes) {
      Json json = dataset::AttributeJsonV1(attribute);
      out.Raw(json.dump());
    }
    out.EndArray();
    out.Key("metrics");
    out.BeginArray();
    for (size_t m = 0; m < grid.metrics.size(); ++m) {
      WriteMetricDefinition(out, grid.metrics[m], result, m, false);
    }
    out.EndArray();
    out.Key("thresholds");
    out.BeginArray();
    out.EndArray();
    out.Key("sorting");
    out.Raw(grid.sorting["rows"].dump());
    if (header.visualization) WriteSummaries(out, *header.visualization);
    out.EndObject();
    out.Key("data");
    out.BeginObject();
    WritePaging(out, result, page, range);
    WriteRootV1(out, grid, result, readers, range);
    out.EndObject();
    out.EndObject();
  }
}

// v2: the definition with the page's elements, then the rows as indexes into them.
void WriteResultV2(JsonWriter& out, const service::instance::InstanceGrid& grid,
                   const engine::ResultSet& result, const GridPage& page, const PageRange& range,
                   const std::vector<AttributeReader>& readers, const MetricValueParts& parts) {
  std::vector<PageElements> elements;
  std::vector<std::vector<int32_t>> indexes(readers.size());
  for (size_t j = 0; j < readers.size(); ++j) {
    elements.emplace_back(readers[j], range.end - range.begin);
    indexes[j].reserve(range.end - range.begin);
    for (size_t r = range.begin; r < range.end; ++r) {
      indexes[j].push_back(elements[j].IndexOf((*readers[j].codes)[r]));
    }
  }
  WriteGridDefinitionV2(out, grid, result, readers, elements);
  out.Key("data");
  out.BeginObject();
  out.Key("currentPageBy");
  out.BeginArray();
  out.EndArray();
  WritePaging(out, result, page, range);
  out.Key("headers");
  out.BeginObject();
  out.Key("rows");
  out.BeginArray();
  for (size_t i = 0; i < range.end - range.begin; ++i) {
    out.BeginArray();
    for (size_t j = 0; j < readers.size(); ++j) out.Int(indexes[j][i]);
    out.EndArray();
  }
  out.EndArray();
  out.Key("columns");
  out.BeginArray();
  if (!grid.metrics.empty()) {
    out.BeginArray();
    for (size_t m = 0; m < grid.metrics.size(); ++m) out.Int(static_cast<int64_t>(m));
    out.EndArray();
  }
  out.EndArray();
  out.EndObject();
  WriteMetricValuesV2(out, grid, result, range, parts);
  out.EndObject();
}

}  // namespace

std::string WriteGrid(const GridHeader& header, const service::instance::InstanceGrid& grid,
                      const engine::ResultSet& result, const GridPage& page,
                      const GridFormat& format) {
  const PageRange range = RangeOf(result, page);
  const std::vector<AttributeReader> readers = ReadersOf(grid, result);
  std::string text;
  text.reserve(64 * (range.end - range.begin) * (1 + readers.size() + grid.metrics.size()) + 4096);
  JsonWriter out(text);
  out.BeginObject();
  WriteHeaderOf(out, header, format);
  if (format.version == ApiVersion::kV1) {
    WriteResultV1(out, header, grid, result, page, range, readers, format.keep);
  } else {
    WriteResultV2(out, grid, result, page, range, readers, format.parts);
  }
  out.EndObject();
  return text;
}

}  // namespace tessera::api::grid
