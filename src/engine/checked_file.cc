#include "engine/checked_file.h"

#include "core/ids.h"

namespace tessera::engine {
namespace {

enum CellTag : uint8_t { kNullCell = 0, kIntegerCell = 1, kRealCell = 2, kTextCell = 3 };

}  // namespace

void AppendCellBytes(std::string& bytes, const Cell& cell) {
  auto append = [&bytes](const auto& value) {
    bytes.append(reinterpret_cast<const char*>(&value), sizeof value);
  };
  if (const auto* integer = std::get_if<int64_t>(&cell)) {
    bytes.push_back(static_cast<char>(kIntegerCell));
    append(*integer);
  } else if (const auto* real = std::get_if<double>(&cell)) {
    bytes.push_back(static_cast<char>(kRealCell));
    append(*real);
  } else if (const auto* text = std::get_if<std::string>(&cell)) {
    bytes.push_back(static_cast<char>(kTextCell));
    append(static_cast<uint32_t>(text->size()));
    bytes.append(*text);
  } else {
    bytes.push_back(static_cast<char>(kNullCell));
  }
}

void WriteCells(CheckedOutput& out, const std::vector<Cell>& cells) {
  constexpr size_t kBatchBytes = 64 * 1024;
  std::string batch;
  batch.reserve(kBatchBytes + 4096);
  for (const auto& cell : cells) {
    AppendCellBytes(batch, cell);
    if (batch.size() >= kBatchBytes) {
      out.Bytes(batch.data(), batch.size());
      batch.clear();
    }
  }
  out.Bytes(batch.data(), batch.size());
}

Cell ReadCell(CheckedInput& in) {
  switch (in.U8()) {
    case kNullCell:
      return std::monostate{};
    case kIntegerCell:
      return in.Value<int64_t>();
    case kRealCell:
      return in.Value<double>();
    case kTextCell:
      return in.String();
    default:
      in.Corrupt("unknown cell type");
  }
}

void SyncDirectory(const std::filesystem::path& directory) {
  int fd = ::open(directory.empty() ? "." : directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // the rename is done; durability of the entry is best effort here
  ::fsync(fd);
  ::close(fd);
}

void WriteFileAtomically(const std::filesystem::path& path, const std::string& description,
                         const std::function<void(CheckedOutput&)>& write_body) {
  std::filesystem::path temporary = path;
  temporary += ".tmp-" + NewTicketId();
  try {
    CheckedOutput out(temporary, description);
    write_body(out);
    out.Commit();
    std::error_code error;
    std::filesystem::rename(temporary, path, error);
    if (error) {
      throw Error(ErrorCode::kInternal,
                  "cannot replace " + description + " " + path.string() + ": " + error.message());
    }
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw;
  }
  SyncDirectory(path.parent_path());
}

}  // namespace tessera::engine
