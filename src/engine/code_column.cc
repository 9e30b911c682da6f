#include "engine/code_column.h"

#include <algorithm>

#include "core/error.h"
#include "engine/huge_pages.h"

namespace tessera::engine {
namespace {

template <typename T>
std::vector<uint8_t> NarrowTo(const std::vector<uint32_t>& codes) {
  std::vector<uint8_t> bytes = NewColumnBuffer<uint8_t>(codes.size() * sizeof(T));
  T* out = reinterpret_cast<T*>(bytes.data());
  for (size_t i = 0; i < codes.size(); ++i) out[i] = static_cast<T>(codes[i]);
  return bytes;
}

}  // namespace

int CodeColumn::WidthFor(size_t dictionary_size) {
  if (dictionary_size <= 0x100) return 1;
  if (dictionary_size <= 0x10000) return 2;
  return 4;
}

CodeColumn::CodeColumn(const std::vector<uint32_t>& codes, size_t dictionary_size)
    : width_(WidthFor(dictionary_size)), size_(codes.size()) {
  switch (width_) {
    case 1:
      bytes_ = NarrowTo<uint8_t>(codes);
      break;
    case 2:
      bytes_ = NarrowTo<uint16_t>(codes);
      break;
    default:
      bytes_ = NarrowTo<uint32_t>(codes);
  }
  BuildZones();
}

size_t CodeColumn::MemoryBytes() const {
  return bytes_.capacity() + zones_.capacity() * sizeof(Zone);
}

void CodeColumn::BuildZones() {
  zones_.assign((size_ + kZoneRows - 1) / kZoneRows, Zone{});
  VisitCodes(*this, [&](const auto* codes) {
    for (size_t z = 0; z < zones_.size(); ++z) {
      const auto* first = codes + z * kZoneRows;
      const auto* last = codes + std::min(size_, (z + 1) * kZoneRows);
      const auto [min, max] = std::minmax_element(first, last);
      zones_[z] = {*min, *max};
    }
  });
}

CodeColumn CodeColumn::FromBytes(std::vector<uint8_t> bytes, int width) {
  if ((width != 1 && width != 2 && width != 4) || bytes.size() % width != 0) {
    throw Error(ErrorCode::kInvalidInput, "code column: bad width or size");
  }
  CodeColumn column;
  column.width_ = width;
  column.size_ = bytes.size() / width;
  column.bytes_ = std::move(bytes);
  column.BuildZones();
  return column;
}

}  // namespace tessera::engine
