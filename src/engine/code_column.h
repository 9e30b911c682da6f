// engine/code_column.h
//
// The codes of one dictionary-encoded attribute column: one code per row, stored in the narrowest
// width that holds the largest code (1, 2 or 4 bytes), so scans read as few bytes as possible.
// VisitCodes hands a kernel the typed pointer (const uint8_t*, const uint16_t* or
// const uint32_t*) so the inner loop is compiled once per width.
//
// A zone map keeps the smallest and largest code of every zone of kZoneRows rows (zone z holds
// rows [z * kZoneRows, (z + 1) * kZoneRows)), so a filter can pass or drop a whole zone without
// reading its rows, and aggregation can see that a zone holds one element only. Rows published
// in an order that clusters an attribute (dates, most often) make its zones narrow.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace tessera::engine {

class CodeColumn {
 public:
  CodeColumn() = default;
  // Narrows `codes`, every one of which is < `dictionary_size`.
  CodeColumn(const std::vector<uint32_t>& codes, size_t dictionary_size);

  static int WidthFor(size_t dictionary_size);  // 1, 2 or 4

  static constexpr size_t kZoneRows = 4096;

  int width() const { return width_; }
  size_t size() const { return size_; }
  size_t MemoryBytes() const;

  struct Zone {
    uint32_t min = 0;
    uint32_t max = 0;
  };
  const Zone& zone(size_t index) const { return zones_[index]; }

  uint32_t operator[](size_t row) const {
    switch (width_) {
      case 1:
        return data<uint8_t>()[row];
      case 2:
        return data<uint16_t>()[row];
      default:
        return data<uint32_t>()[row];
    }
  }

  template <typename T>
  const T* data() const {
    return reinterpret_cast<const T*>(bytes_.data());
  }

  // Raw bytes, for snapshots.
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  static CodeColumn FromBytes(std::vector<uint8_t> bytes, int width);

 private:
  void BuildZones();

  std::vector<uint8_t> bytes_;
  int width_ = 1;
  size_t size_ = 0;
  std::vector<Zone> zones_;
};

template <typename Kernel>
decltype(auto) VisitCodes(const CodeColumn& column, Kernel&& kernel) {
  switch (column.width()) {
    case 1:
      return kernel(column.data<uint8_t>());
    case 2:
      return kernel(column.data<uint16_t>());
    default:
      return kernel(column.data<uint32_t>());
  }
}

}  // namespace tessera::engine
