#include "engine/dataset_snapshot.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <limits>
#include <map>
#include <vector>

#include "core/error.h"
#include "engine/checked_file.h"
#include "engine/huge_pages.h"

namespace tessera::engine {
namespace {

constexpr char kMagic[kMagicBytes] = {'T', 'S', 'N', 'A', 'P', 'S', 'H', 'T'};
constexpr char kDescription[] = "the cube snapshot";
constexpr uint8_t kDoublesBuffer = 0;
constexpr uint8_t kValidityBuffer = 1;

size_t ValidityWords(size_t rows) { return (rows + 63) / 64; }

// Writing

void WriteAttribute(CheckedOutput& out, const AttributeColumn& attribute) {
  out.String(attribute.id);
  out.String(attribute.name);
  out.U8(attribute.hidden ? 1 : 0);
  const auto& forms = attribute.dictionary.forms();
  out.U32(static_cast<uint32_t>(forms.size()));
  out.U64(attribute.dictionary.size());
  for (const auto& form : forms) {
    out.String(form.name);
    out.U8(static_cast<uint8_t>(form.type));
    WriteCells(out, form.values);
    out.Bytes(form.ranks.data(), form.ranks.size() * sizeof(uint32_t));
  }
  out.U8(static_cast<uint8_t>(attribute.codes.width()));
  out.Bytes(attribute.codes.bytes().data(), attribute.codes.bytes().size());
}

// The distinct buffers of the metric columns, each with the index it is written under.
struct BufferTable {
  std::vector<std::pair<uint8_t, const void*>> buffers;  // kind, vector
  std::map<const void*, int32_t> index;

  int32_t Add(uint8_t kind, const void* buffer) {
    if (buffer == nullptr) return -1;
    auto [it, is_new] = index.emplace(buffer, static_cast<int32_t>(buffers.size()));
    if (is_new) buffers.emplace_back(kind, buffer);
    return it->second;
  }
};

void CheckWritable(const Dataset& dataset) {
  const size_t rows = dataset.row_count();
  auto fail = [](const std::string& what) {
    throw Error(ErrorCode::kInternal,
                "cannot write a snapshot of an inconsistent dataset: " + what);
  };
  for (const auto& attribute : dataset.attributes()) {
    if (attribute.codes.size() != rows) fail("attribute '" + attribute.name + "' codes");
    if (attribute.dictionary.forms().empty()) fail("attribute '" + attribute.name + "' forms");
    for (const auto& form : attribute.dictionary.forms()) {
      if (form.values.size() != attribute.dictionary.size() ||
          form.ranks.size() != form.values.size()) {
        fail("attribute '" + attribute.name + "' form '" + form.name + "'");
      }
    }
  }
  for (const auto& metric : dataset.metrics()) {
    if ((metric.values && metric.values->size() != rows) ||
        (metric.counts && metric.counts->size() != rows) ||
        (metric.valid && metric.valid->size() != ValidityWords(rows))) {
      fail("metric '" + metric.name + "' buffers");
    }
  }
}

void WriteBody(CheckedOutput& out, const Dataset& dataset) {
  out.Bytes(kMagic, sizeof kMagic);
  out.U32(kSnapshotFormatVersion);
  out.String(SnapshotPlatform());
  out.U64(dataset.row_count());

  out.U32(static_cast<uint32_t>(dataset.attributes().size()));
  for (const auto& attribute : dataset.attributes()) WriteAttribute(out, attribute);

  BufferTable table;
  struct BufferRefs {
    int32_t values, valid, counts;
  };
  std::vector<BufferRefs> refs;
  for (const auto& metric : dataset.metrics()) {
    refs.push_back({table.Add(kDoublesBuffer, metric.values.get()),
                    table.Add(kValidityBuffer, metric.valid.get()),
                    table.Add(kDoublesBuffer, metric.counts.get())});
  }
  out.U32(static_cast<uint32_t>(table.buffers.size()));
  for (const auto& [kind, buffer] : table.buffers) {
    out.U8(kind);
    if (kind == kDoublesBuffer) {
      const auto& values = *static_cast<const std::vector<double>*>(buffer);
      out.U64(values.size());
      out.Bytes(values.data(), values.size() * sizeof(double));
    } else {
      const auto& words = *static_cast<const std::vector<uint64_t>*>(buffer);
      out.U64(words.size());
      out.Bytes(words.data(), words.size() * sizeof(uint64_t));
    }
  }

  out.U32(static_cast<uint32_t>(dataset.metrics().size()));
  for (size_t i = 0; i < dataset.metrics().size(); ++i) {
    const MetricColumn& metric = dataset.metric(i);
    out.String(metric.id);
    out.String(metric.name);
    out.U8(static_cast<uint8_t>(metric.function));
    out.String(metric.format_string);
    out.I32(refs[i].values);
    out.I32(refs[i].valid);
    out.I32(refs[i].counts);
    out.I32(metric.counted_attribute);
  }
}

// Reading

// Ranks must order the elements by the form's values, ties by code (engine/dictionary.h).
void CheckRanks(CheckedInput& in, const FormValues& form, const std::string& attribute) {
  const size_t size = form.values.size();
  std::vector<uint32_t> code_at(size, std::numeric_limits<uint32_t>::max());
  for (uint32_t code = 0; code < size; ++code) {
    const uint32_t rank = form.ranks[code];
    if (rank >= size || code_at[rank] != std::numeric_limits<uint32_t>::max()) {
      in.Corrupt("attribute '" + attribute + "' form '" + form.name + "': ranks");
    }
    code_at[rank] = code;
  }
  for (size_t rank = 1; rank < size; ++rank) {
    const int order = CompareCells(form.values[code_at[rank - 1]], form.values[code_at[rank]]);
    if (order > 0 || (order == 0 && code_at[rank - 1] > code_at[rank])) {
      in.Corrupt("attribute '" + attribute + "' form '" + form.name + "': ranks out of order");
    }
  }
}

Dictionary ReadDictionary(CheckedInput& in, const std::string& attribute) {
  const uint32_t form_count = in.U32();
  if (form_count == 0) in.Corrupt("attribute '" + attribute + "' has no forms");
  in.CheckAvailable(form_count, 5, "the forms of attribute '" + attribute + "'");
  const uint64_t elements = in.U64();
  // Every element costs at least one tag byte and four rank bytes per form.
  in.CheckAvailable(elements, uint64_t{5} * form_count, "attribute '" + attribute + "'");
  if (elements > std::numeric_limits<uint32_t>::max()) in.Corrupt("too many elements");
  std::vector<FormValues> forms(form_count);
  for (auto& form : forms) {
    form.name = in.String();
    const uint8_t type = in.U8();
    if (type > static_cast<uint8_t>(model::DataType::kBoolean)) {
      in.Corrupt("attribute '" + attribute + "': unknown data type");
    }
    form.type = static_cast<model::DataType>(type);
    form.values.reserve(std::min<uint64_t>(elements, uint64_t{1} << 20));
    for (uint64_t i = 0; i < elements; ++i) form.values.push_back(ReadCell(in));
    in.CheckAvailable(elements, sizeof(uint32_t), "attribute '" + attribute + "' ranks");
    form.ranks.resize(elements);
    in.Bytes(form.ranks.data(), elements * sizeof(uint32_t));
    CheckRanks(in, form, attribute);
  }
  // Non-decreasing rather than strictly increasing: whatever a builder produced must read back
  // (an integer 2 and a real 2.0 from a loosely typed source compare equal but are two elements).
  const auto& ids = forms.front().values;
  for (size_t i = 1; i < ids.size(); ++i) {
    if (CompareCells(ids[i - 1], ids[i]) > 0) {
      in.Corrupt("attribute '" + attribute + "': elements are not in ID order");
    }
  }
  return Dictionary(std::move(forms));
}

CodeColumn ReadCodes(CheckedInput& in, uint64_t rows, size_t dictionary_size,
                     const std::string& attribute) {
  const uint8_t width = in.U8();
  if (width != 1 && width != 2 && width != 4) {
    in.Corrupt("attribute '" + attribute + "': code width " + std::to_string(width));
  }
  in.CheckAvailable(rows, width, "the codes of attribute '" + attribute + "'");
  std::vector<uint8_t> bytes = NewColumnBuffer<uint8_t>(rows * width);
  in.Bytes(bytes.data(), bytes.size());
  CodeColumn codes = CodeColumn::FromBytes(std::move(bytes), width);
  const bool in_range = VisitCodes(codes, [&](const auto* data) {
    for (size_t row = 0; row < rows; ++row) {
      if (data[row] >= dictionary_size) return false;
    }
    return true;
  });
  if (!in_range) in.Corrupt("attribute '" + attribute + "': a code beyond its dictionary");
  return codes;
}

AttributeColumn ReadAttribute(CheckedInput& in, uint64_t rows) {
  AttributeColumn attribute;
  attribute.id = in.String();
  attribute.name = in.String();
  const uint8_t hidden = in.U8();
  if (hidden > 1) in.Corrupt("attribute '" + attribute.name + "': hidden flag");
  attribute.hidden = hidden == 1;
  attribute.dictionary = ReadDictionary(in, attribute.name);
  attribute.codes = ReadCodes(in, rows, attribute.dictionary.size(), attribute.name);
  return attribute;
}

struct Buffer {
  uint8_t kind = kDoublesBuffer;
  std::shared_ptr<const std::vector<double>> doubles;
  std::shared_ptr<const std::vector<uint64_t>> words;
};

Buffer ReadBuffer(CheckedInput& in, uint64_t rows) {
  Buffer buffer;
  buffer.kind = in.U8();
  const uint64_t length = in.U64();
  if (buffer.kind == kDoublesBuffer) {
    if (length != rows) in.Corrupt("a metric buffer does not have one value per row");
    in.CheckAvailable(length, sizeof(double), "a metric buffer");
    auto values = std::make_shared<std::vector<double>>(NewColumnBuffer<double>(length));
    in.Bytes(values->data(), length * sizeof(double));
    buffer.doubles = std::move(values);
  } else if (buffer.kind == kValidityBuffer) {
    if (length != ValidityWords(rows)) in.Corrupt("a validity buffer does not cover the rows");
    in.CheckAvailable(length, sizeof(uint64_t), "a validity buffer");
    auto words = std::make_shared<std::vector<uint64_t>>(length);
    in.Bytes(words->data(), length * sizeof(uint64_t));
    buffer.words = std::move(words);
  } else {
    in.Corrupt("unknown buffer kind");
  }
  return buffer;
}

const Buffer* BufferAt(CheckedInput& in, const std::vector<Buffer>& buffers, int32_t index,
                       uint8_t kind, const std::string& metric) {
  if (index == -1) return nullptr;
  if (index < 0 || static_cast<size_t>(index) >= buffers.size() || buffers[index].kind != kind) {
    in.Corrupt("metric '" + metric + "': buffer reference");
  }
  return &buffers[index];
}

MetricColumn ReadMetric(CheckedInput& in, const std::vector<Buffer>& buffers,
                        size_t attribute_count) {
  MetricColumn metric;
  metric.id = in.String();
  metric.name = in.String();
  const uint8_t function = in.U8();
  if (function > static_cast<uint8_t>(model::AggregateFunction::kCountDistinct)) {
    in.Corrupt("metric '" + metric.name + "': unknown function");
  }
  metric.function = static_cast<model::AggregateFunction>(function);
  metric.format_string = in.String();
  const int32_t values = in.I32();
  const int32_t valid = in.I32();
  const int32_t counts = in.I32();
  if (const Buffer* buffer = BufferAt(in, buffers, values, kDoublesBuffer, metric.name)) {
    metric.values = buffer->doubles;
  }
  if (const Buffer* buffer = BufferAt(in, buffers, valid, kValidityBuffer, metric.name)) {
    metric.valid = buffer->words;
  }
  if (const Buffer* buffer = BufferAt(in, buffers, counts, kDoublesBuffer, metric.name)) {
    metric.counts = buffer->doubles;
  }
  metric.counted_attribute = in.I32();
  if (metric.counted_attribute < -1 ||
      metric.counted_attribute >= static_cast<int64_t>(attribute_count)) {
    in.Corrupt("metric '" + metric.name + "': counted attribute");
  }
  return metric;
}

std::shared_ptr<const Dataset> ReadBody(CheckedInput& in) {
  char magic[sizeof kMagic];
  in.Bytes(magic, sizeof magic);
  if (std::memcmp(magic, kMagic, sizeof kMagic) != 0) in.Corrupt("not a Tessera cube snapshot");
  const uint32_t version = in.U32();
  if (version > kSnapshotFormatVersion) {
    throw Error(ErrorCode::kNotSupported,
                "the cube snapshot was written in format " + std::to_string(version) +
                    " by a newer Tessera; this server reads format " +
                    std::to_string(kSnapshotFormatVersion) + ". Publish the cube again.");
  }
  if (version != kSnapshotFormatVersion) in.Corrupt("format " + std::to_string(version));
  const std::string platform = in.String();
  if (platform != SnapshotPlatform()) {
    throw Error(ErrorCode::kNotSupported, "the cube snapshot was written on another platform (" +
                                              platform + "; this one is " + SnapshotPlatform() +
                                              "). Publish the cube again.");
  }
  const uint64_t rows = in.U64();
  if (rows > std::numeric_limits<size_t>::max() / 8) in.Corrupt("row count");

  const uint32_t attribute_count = in.U32();
  in.CheckAvailable(attribute_count, 14, "the attribute list");
  std::vector<AttributeColumn> attributes;
  for (uint32_t i = 0; i < attribute_count; ++i) attributes.push_back(ReadAttribute(in, rows));

  const uint32_t buffer_count = in.U32();
  in.CheckAvailable(buffer_count, 9, "the buffer list");
  std::vector<Buffer> buffers;
  for (uint32_t i = 0; i < buffer_count; ++i) buffers.push_back(ReadBuffer(in, rows));

  const uint32_t metric_count = in.U32();
  in.CheckAvailable(metric_count, 25, "the metric list");
  std::vector<MetricColumn> metrics;
  for (uint32_t i = 0; i < metric_count; ++i) {
    metrics.push_back(ReadMetric(in, buffers, attributes.size()));
  }
  in.Finish();
  return std::make_shared<const Dataset>(rows, std::move(attributes), std::move(metrics));
}

}  // namespace

std::string SnapshotPlatform() {
  return std::string(std::endian::native == std::endian::little ? "little-endian" : "big-endian") +
         " " + std::to_string(sizeof(size_t) * 8) + "-bit ieee754";
}

void WriteDatasetSnapshot(const Dataset& dataset, const std::filesystem::path& path) {
  static_assert(std::numeric_limits<double>::is_iec559);
  CheckWritable(dataset);
  WriteFileAtomically(path, kDescription, [&](CheckedOutput& out) { WriteBody(out, dataset); });
}

std::shared_ptr<const Dataset> ReadDatasetSnapshot(const std::filesystem::path& path) {
  CheckedInput in(path, kDescription);
  return ReadBody(in);
}

}  // namespace tessera::engine
