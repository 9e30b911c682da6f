// Pushed rows on disk: what is written reads back, under a changed model too, and a damaged file
// is refused rather than trusted.
#include "engine/push/pushed_rows_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include "core/error.h"
#include "engine/push/push_samples.h"
#include "support/temp_dir.h"

namespace tessera::testing {
namespace {

using engine::Cell;
using engine::push::PushedTables;

engine::push::PushModel SampleModel() {
  return engine::push::ParsePushModel(ParseJson(kSalesAndStoresModel));
}

PushedTables SampleRows() {
  PushedTables tables;
  tables["Sales"] = {
      {Cell(int64_t{1}), Cell(std::string("2024-05-01")), Cell(12.5), Cell(int64_t{3})},
      {Cell(int64_t{2}), Cell(), Cell(-0.25), Cell()}};
  tables["Stores"] = {{Cell(int64_t{1}), Cell(std::string("North")), Cell(7.0)}};
  return tables;
}

TEST(PushedRowsFile, WhatIsWrittenReadsBack) {
  TempDir dir;
  const auto path = dir.path() / "rows";
  WritePushedRows(SampleModel(), SampleRows(), path);
  EXPECT_EQ(ReadPushedRows(SampleModel(), path), SampleRows());
  WritePushedRows(SampleModel(), {}, path);  // replaced, not appended
  EXPECT_TRUE(ReadPushedRows(SampleModel(), path).empty());
}

// The file's bytes before its checksum, built here from the format the header documents.
class ExpectedBytes {
 public:
  template <typename T>
  ExpectedBytes& Value(T value) {
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof value);
    return *this;
  }
  ExpectedBytes& Text(const std::string& text) {
    Value(static_cast<uint32_t>(text.size()));
    bytes_ += text;
    return *this;
  }
  ExpectedBytes& Row(const std::vector<Cell>& row) {
    for (const auto& cell : row) {
      if (const auto* integer = std::get_if<int64_t>(&cell)) {
        Value(uint8_t{1}).Value(*integer);
      } else if (const auto* real = std::get_if<double>(&cell)) {
        Value(uint8_t{2}).Value(*real);
      } else if (const auto* text = std::get_if<std::string>(&cell)) {
        Value(uint8_t{3}).Text(*text);
      } else {
        Value(uint8_t{0});
      }
    }
    return *this;
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_ = "TPUSHROW";
};

TEST(PushedRowsFile, BytesFollowTheDocumentedLayoutAcrossManyRows) {
  PushedTables tables;
  auto& sales = tables["Sales"];
  for (int64_t i = 0; i < 20000; ++i) {  // several write batches
    sales.push_back({Cell(i), i % 3 ? Cell("2024-05-" + std::to_string(10 + i % 19)) : Cell(),
                     Cell(i * 0.5), i % 7 ? Cell(i % 11) : Cell()});
  }
  ExpectedBytes expected;
  expected.Value(uint32_t{1}).Value(uint32_t{1}).Text("Sales").Value(uint32_t{4});
  for (const char* column : {"store_id", "day", "revenue", "units"}) expected.Text(column);
  expected.Value(uint64_t{sales.size()});
  for (const auto& row : sales) expected.Row(row);

  TempDir dir;
  const auto path = dir.path() / "rows";
  WritePushedRows(SampleModel(), tables, path);
  std::ifstream in(path, std::ios::binary);
  const std::string written((std::istreambuf_iterator<char>(in)), {});
  ASSERT_EQ(written.size(), expected.bytes().size() + sizeof(uint64_t));
  EXPECT_TRUE(written.compare(0, expected.bytes().size(), expected.bytes()) == 0);
  EXPECT_EQ(ReadPushedRows(SampleModel(), path), tables);
}

// The names of the files in `directory`.
std::vector<std::string> FilesIn(const std::filesystem::path& directory) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    names.push_back(entry.path().filename().string());
  }
  return names;
}

TEST(PushedRowsFile, StagedRowsInstalledReadBackAndLeaveNoOtherFile) {
  TempDir dir;
  const auto path = dir.path() / "rows";
  {
    engine::push::StagedPushedRows staged(
        SampleModel(), std::make_shared<const PushedTables>(SampleRows()), dir.path());
    staged.Install(path);
  }
  EXPECT_EQ(ReadPushedRows(SampleModel(), path), SampleRows());
  EXPECT_EQ(FilesIn(dir.path()), std::vector<std::string>{"rows"});
}

TEST(PushedRowsFile, StagedRowsNeverInstalledLeaveNoFile) {
  TempDir dir;
  {
    engine::push::StagedPushedRows staged(
        SampleModel(), std::make_shared<const PushedTables>(SampleRows()), dir.path());
  }
  EXPECT_TRUE(FilesIn(dir.path()).empty());
}

TEST(PushedRowsFile, StagedRowsGoToADirectoryMadeForThem) {
  TempDir dir;
  const auto path = dir.path() / "cubes" / "rows";
  {
    engine::push::StagedPushedRows staged(
        SampleModel(), std::make_shared<const PushedTables>(SampleRows()), dir.path() / "cubes");
    staged.Install(path);
  }
  EXPECT_EQ(ReadPushedRows(SampleModel(), path), SampleRows());
  EXPECT_EQ(FilesIn(dir.path() / "cubes"), std::vector<std::string>{"rows"});
}

TEST(PushedRowsFile, StagedRowsThatCouldNotBeStagedAreWrittenWhereInstalled) {
  TempDir dir;
  const auto path = dir.path() / "rows";
  std::ofstream(dir.path() / "a file") << "not a directory";
  {
    engine::push::StagedPushedRows staged(SampleModel(),
                                          std::make_shared<const PushedTables>(SampleRows()),
                                          dir.path() / "a file" / "cubes");
    staged.Install(path);
  }
  EXPECT_EQ(ReadPushedRows(SampleModel(), path), SampleRows());
  std::vector<std::string> files = FilesIn(dir.path());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"a file", "rows"}));
}

TEST(PushedRowsFile, NoFileIsNoRows) {
  TempDir dir;
  EXPECT_TRUE(ReadPushedRows(SampleModel(), dir.path() / "absent").empty());
}

TEST(PushedRowsFile, RowsFollowTheirColumnsByNameUnderAChangedModel) {
  TempDir dir;
  const auto path = dir.path() / "rows";
  WritePushedRows(SampleModel(), SampleRows(), path);
  Json changed = ParseJson(kSalesAndStoresModel);
  // Sales loses "day", gains "note" and reorders; revenue becomes a string; Stores goes away.
  changed["tables"][0]["columnHeaders"] = {{{"name", "revenue"}, {"dataType", "STRING"}},
                                           {{"name", "note"}, {"dataType", "STRING"}},
                                           {{"name", "units"}, {"dataType", "BIGINTEGER"}},
                                           {{"name", "store_id"}, {"dataType", "BIGINTEGER"}}};
  changed["tables"].erase(1);
  changed["metrics"] = Json::array();
  changed["attributes"] = {
      {{"name", "store_id"},
       {"attributeForms",
        {{{"category", "ID"},
          {"expressions", {{{"tableName", "Sales"}, {"columnName", "store_id"}}}}}}}}};
  PushedTables read = ReadPushedRows(engine::push::ParsePushModel(changed), path);
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read["Sales"],
            (engine::push::PushedRows{{Cell(), Cell(), Cell(int64_t{3}), Cell(int64_t{1})},
                                      {Cell(), Cell(), Cell(), Cell(int64_t{2})}}));
}

TEST(PushedRowsFile, ADamagedFileIsRefused) {
  TempDir dir;
  const auto path = dir.path() / "rows";
  WritePushedRows(SampleModel(), SampleRows(), path);
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto write = [&](const std::string& content) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
  };
  auto expect_refused = [&](const std::string& content, const std::string& what) {
    write(content);
    try {
      ReadPushedRows(SampleModel(), path);
      ADD_FAILURE() << what << " was read";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::kInternal) << what;
    }
  };
  std::string flipped = bytes;
  flipped[bytes.size() / 2] ^= 0x40;
  expect_refused(flipped, "a flipped byte");
  expect_refused(bytes.substr(0, bytes.size() - 3), "a truncated file");
  expect_refused("TSNAPSHT" + bytes.substr(8), "another magic");
  write(bytes);
  EXPECT_EQ(ReadPushedRows(SampleModel(), path), SampleRows());
}

}  // namespace
}  // namespace tessera::testing
