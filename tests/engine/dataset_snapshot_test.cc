// Dataset snapshots: a round trip gives back every column, dictionary, rank and null bit, shared
// buffers stay shared, writes are atomic, and every corrupt, truncated or newer file is refused
// with an Error -- never a crash (the tests run under ASan/UBSan).
#include "engine/dataset_snapshot.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "core/error.h"
#include "engine/cube_publisher.h"
#include "engine/demo_fixture.h"
#include "engine/sql/dataset_builder.h"
#include "model/object_types.h"
#include "support/temp_dir.h"

namespace tessera::testing {
namespace {

using engine::Cell;
using engine::Dataset;

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteFile(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string Describe(const Cell& cell) {
  if (std::holds_alternative<std::monostate>(cell)) return "null";
  if (const auto* integer = std::get_if<int64_t>(&cell)) return "i" + std::to_string(*integer);
  if (const auto* real = std::get_if<double>(&cell)) return "r" + CellText(*real);
  return "t" + std::get<std::string>(cell);
}

template <typename T>
void ExpectSameBuffer(const std::shared_ptr<const std::vector<T>>& a,
                      const std::shared_ptr<const std::vector<T>>& b, const std::string& what) {
  ASSERT_EQ(a == nullptr, b == nullptr) << what;
  if (!a) return;
  ASSERT_EQ(a->size(), b->size()) << what;
  if (a->empty()) return;
  EXPECT_EQ(std::memcmp(a->data(), b->data(), a->size() * sizeof(T)), 0) << what;
}

// Everything a Dataset holds, compared field by field.
void ExpectSameDataset(const Dataset& a, const Dataset& b) {
  ASSERT_EQ(a.row_count(), b.row_count());
  ASSERT_EQ(a.attributes().size(), b.attributes().size());
  for (size_t i = 0; i < a.attributes().size(); ++i) {
    const auto& x = a.attribute(i);
    const auto& y = b.attribute(i);
    SCOPED_TRACE("attribute " + x.name);
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.hidden, y.hidden);
    ASSERT_EQ(x.dictionary.forms().size(), y.dictionary.forms().size());
    for (size_t f = 0; f < x.dictionary.forms().size(); ++f) {
      const auto& fx = x.dictionary.forms()[f];
      const auto& fy = y.dictionary.forms()[f];
      EXPECT_EQ(fx.name, fy.name);
      EXPECT_EQ(fx.type, fy.type);
      ASSERT_EQ(fx.values.size(), fy.values.size());
      for (size_t e = 0; e < fx.values.size(); ++e) {
        ASSERT_EQ(Describe(fx.values[e]), Describe(fy.values[e])) << "element " << e;
      }
      EXPECT_EQ(fx.ranks, fy.ranks);
    }
    EXPECT_EQ(x.codes.width(), y.codes.width());
    EXPECT_EQ(x.codes.size(), y.codes.size());
    EXPECT_EQ(x.codes.bytes(), y.codes.bytes());
  }
  ASSERT_EQ(a.metrics().size(), b.metrics().size());
  for (size_t i = 0; i < a.metrics().size(); ++i) {
    const auto& x = a.metric(i);
    const auto& y = b.metric(i);
    SCOPED_TRACE("metric " + x.name);
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.function, y.function);
    EXPECT_EQ(x.format_string, y.format_string);
    EXPECT_EQ(x.counted_attribute, y.counted_attribute);
    ExpectSameBuffer(x.values, y.values, "values");
    ExpectSameBuffer(x.valid, y.valid, "valid");
    ExpectSameBuffer(x.counts, y.counts, "counts");
    for (size_t row = 0; row < a.row_count(); ++row) {
      ASSERT_EQ(x.IsValid(row), y.IsValid(row)) << "row " << row;
    }
  }
  EXPECT_EQ(a.RawBytes(), b.RawBytes());
}

// A dataset with every kind of cell and column: integer, text, real, date and null IDs, more than
// 256 elements (two-byte codes), nulls, an avg with counts, a metric sharing another's values,
// a count of rows and a hidden attribute.
engine::sql::MetricSpec Metric(std::string id, std::string name,
                               model::AggregateFunction function) {
  engine::sql::MetricSpec spec;
  spec.id = std::move(id);
  spec.name = std::move(name);
  spec.function = function;
  return spec;
}

Dataset VariedDataset(size_t rows) {
  std::vector<engine::sql::MetricSpec> metrics = {
      Metric("S", "Sales", model::AggregateFunction::kSum),
      Metric("V", "Average", model::AggregateFunction::kAvg),
      Metric("M", "Smallest", model::AggregateFunction::kMin),
      Metric("N", "Rows", model::AggregateFunction::kCount)};
  metrics[0].format_string = "#,##0.00";
  metrics[1].with_count = true;
  metrics[2].shares_values_of = "S";
  metrics[3].counts_rows = true;
  engine::sql::DatasetBuilder builder(
      {{"A", "Store", {{"ID", model::DataType::kInteger}, {"DESC", model::DataType::kText}}},
       {"B", "Day", {{"ID", model::DataType::kDate}}},
       {"C", "Price", {{"ID", model::DataType::kReal}}, true}},
      metrics);
  for (size_t i = 0; i < rows; ++i) {
    std::vector<Cell> row;
    row.emplace_back(static_cast<int64_t>(i % 300) - 5);
    row.emplace_back("Store " + std::to_string(i % 300));
    if (i % 7 == 3) {
      row.emplace_back(std::monostate{});
    } else {
      row.emplace_back("2024-01-" + std::to_string(10 + i % 20));
    }
    row.emplace_back(0.25 * static_cast<double>(i % 11));
    if (i % 5 == 0) {
      row.emplace_back(std::monostate{});
    } else {
      row.emplace_back(1.5 * static_cast<double>(i));
    }
    row.emplace_back(static_cast<int64_t>(i));
    row.emplace_back(static_cast<int64_t>(1 + i % 3));
    builder.AddRow(row);
  }
  return builder.Finish();
}

std::shared_ptr<const Dataset> Published(StoreBackend backend, const std::string& cube_name) {
  model::SemanticModel model = DemoModel();
  auto id = model.FindByName(model::kTypeReportDefinition, cube_name);
  return engine::PublishCubeDataset(*SharedDemoWarehouse(backend).warehouse, model,
                                    model.cube(*id));
}

Error ReadError(const std::filesystem::path& path) {
  try {
    engine::ReadDatasetSnapshot(path);
  } catch (const Error& error) {
    return error;
  }
  ADD_FAILURE() << "the snapshot was read";
  return Error(ErrorCode::kInternal, "");
}

TEST(DatasetSnapshot, APublishedCubeReadsBackEqualInEveryColumn) {
  auto dataset = Published(StoreBackend::kSqlite, "Sales Cube");
  TempDir dir;
  const auto path = dir.path() / "sales.tsnap";
  engine::WriteDatasetSnapshot(*dataset, path);
  auto read = engine::ReadDatasetSnapshot(path);
  ExpectSameDataset(*dataset, *read);
  EXPECT_TRUE(read->attribute(read->metric(3).counted_attribute).hidden);
}

TEST(DatasetSnapshot, EveryKindOfCellNullBitAndSharedBufferSurvives) {
  Dataset dataset = VariedDataset(1000);
  ASSERT_EQ(dataset.attribute(0).codes.width(), 2);
  TempDir dir;
  engine::WriteDatasetSnapshot(dataset, dir.path() / "varied.tsnap");
  auto read = engine::ReadDatasetSnapshot(dir.path() / "varied.tsnap");
  ExpectSameDataset(dataset, *read);
  // Min shares Sum's values: one buffer in memory, as before.
  EXPECT_EQ(read->metric(2).values.get(), read->metric(0).values.get());
  EXPECT_EQ(read->metric(2).valid.get(), read->metric(0).valid.get());
  EXPECT_TRUE(read->metric(3).CountsRows());
}

TEST(DatasetSnapshot, AnEmptyDatasetRoundTrips) {
  Dataset empty = VariedDataset(0);
  TempDir dir;
  engine::WriteDatasetSnapshot(empty, dir.path() / "empty.tsnap");
  auto read = engine::ReadDatasetSnapshot(dir.path() / "empty.tsnap");
  ExpectSameDataset(empty, *read);
}

TEST(DatasetSnapshot, IdsOfMixedNumericTypesReadBackAsBuilt) {
  // A loosely typed source may give 2 and 2.0 for one column; whatever the builder makes of
  // them must read back.
  engine::sql::DatasetBuilder builder({{"A", "Code", {{"ID", model::DataType::kReal}}}},
                                      {Metric("S", "Sales", model::AggregateFunction::kSum)});
  builder.AddRow({int64_t{2}, 1.0});
  builder.AddRow({2.0, 2.0});
  builder.AddRow({int64_t{3}, 3.0});
  Dataset dataset = builder.Finish();
  TempDir dir;
  engine::WriteDatasetSnapshot(dataset, dir.path() / "mixed.tsnap");
  ExpectSameDataset(dataset, *engine::ReadDatasetSnapshot(dir.path() / "mixed.tsnap"));
}

TEST(DatasetSnapshot, WritingReplacesTheFileAndLeavesNoTemporaryFile) {
  TempDir dir;
  const auto path = dir.path() / "cube.tsnap";
  engine::WriteDatasetSnapshot(VariedDataset(10), path);
  engine::WriteDatasetSnapshot(VariedDataset(20), path);
  EXPECT_EQ(engine::ReadDatasetSnapshot(path)->row_count(), 20u);
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    ++files;
    EXPECT_EQ(entry.path().filename(), "cube.tsnap");
  }
  EXPECT_EQ(files, 1u);
}

TEST(DatasetSnapshot, WritingIntoAMissingDirectoryFailsWithoutLeavingAFile) {
  TempDir dir;
  auto error = ErrorFrom(
      [&] { engine::WriteDatasetSnapshot(VariedDataset(10), dir.path() / "no" / "x.tsnap"); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->code(), ErrorCode::kInternal);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(DatasetSnapshot, AMissingFileIsNotFound) {
  TempDir dir;
  EXPECT_EQ(ReadError(dir.path() / "absent.tsnap").code(), ErrorCode::kNotFound);
}

TEST(DatasetSnapshot, AFileThatIsNoSnapshotIsRefused) {
  TempDir dir;
  WriteFile(dir.path() / "text.tsnap", "hello, this is not a cube snapshot at all");
  Error error = ReadError(dir.path() / "text.tsnap");
  EXPECT_EQ(error.code(), ErrorCode::kInternal);
  EXPECT_NE(std::string(error.message()).find("not a Tessera cube snapshot"), std::string::npos)
      << error.message();
}

TEST(DatasetSnapshot, ANewerFormatVersionIsRefusedAsNotSupported) {
  TempDir dir;
  const auto path = dir.path() / "newer.tsnap";
  engine::WriteDatasetSnapshot(VariedDataset(10), path);
  std::string bytes = ReadFile(path);
  const uint32_t newer = engine::kSnapshotFormatVersion + 1;
  std::memcpy(bytes.data() + 8, &newer, sizeof newer);  // right after the 8-byte magic
  WriteFile(path, bytes);
  Error error = ReadError(path);
  EXPECT_EQ(error.code(), ErrorCode::kNotSupported);
  EXPECT_NE(std::string(error.message()).find("newer"), std::string::npos) << error.message();
}

TEST(DatasetSnapshot, EveryTruncationIsRefused) {
  TempDir dir;
  const auto path = dir.path() / "cut.tsnap";
  engine::WriteDatasetSnapshot(VariedDataset(40), path);
  const std::string bytes = ReadFile(path);
  for (size_t size = 0; size < bytes.size(); ++size) {
    WriteFile(path, bytes.substr(0, size));
    EXPECT_EQ(ReadError(path).code(), ErrorCode::kInternal) << "cut at " << size;
  }
}

TEST(DatasetSnapshot, EveryCorruptedByteIsRefused) {
  TempDir dir;
  const auto path = dir.path() / "bad.tsnap";
  engine::WriteDatasetSnapshot(VariedDataset(40), path);
  const std::string bytes = ReadFile(path);
  for (size_t at = 0; at < bytes.size(); ++at) {
    for (uint8_t flip : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xFF}}) {
      std::string corrupt = bytes;
      corrupt[at] = static_cast<char>(static_cast<uint8_t>(corrupt[at]) ^ flip);
      WriteFile(path, corrupt);
      try {
        engine::ReadDatasetSnapshot(path);
        ADD_FAILURE() << "byte " << at << " ^ " << int{flip} << " was read";
      } catch (const Error&) {
        // refused, whatever the code: newer version, corrupt, other platform
      }
    }
  }
}

TEST(DatasetSnapshot, HugeSizesInAShortFileAreRefusedBeforeAllocating) {
  TempDir dir;
  const auto path = dir.path() / "huge.tsnap";
  engine::WriteDatasetSnapshot(VariedDataset(4), path);
  std::string bytes = ReadFile(path);
  // The row count follows the magic, the version and the platform string.
  uint32_t platform_size = 0;
  std::memcpy(&platform_size, bytes.data() + 12, sizeof platform_size);
  const uint64_t huge = uint64_t{1} << 60;
  std::memcpy(bytes.data() + 16 + platform_size, &huge, sizeof huge);
  WriteFile(path, bytes);
  EXPECT_EQ(ReadError(path).code(), ErrorCode::kInternal);
}

}  // namespace
}  // namespace tessera::testing
