#include "engine/element_index.h"

#include <functional>
#include <string_view>
#include <variant>

namespace tessera::engine {
namespace {

constexpr size_t kFirstSlots = 64;

// Spreads every input bit over the result (MurmurHash3's finaliser), since integers hash to
// themselves and the table keeps the low bits.
uint64_t Mixed(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

}  // namespace

ElementIndex::ElementIndex() : slots_(kFirstSlots, 0), mask_(kFirstSlots - 1) {}

uint32_t ElementIndex::HashOf(const Cell& cell) {
  uint64_t h = 0;
  if (const auto* text = std::get_if<std::string>(&cell)) {
    h = std::hash<std::string_view>()(*text);
  } else if (const auto* integer = std::get_if<int64_t>(&cell)) {
    h = static_cast<uint64_t>(*integer);
  } else if (const auto* real = std::get_if<double>(&cell)) {
    h = std::hash<double>()(*real);  // 0.0 and -0.0 alike, as == has them
  }
  return static_cast<uint32_t>(Mixed(h + cell.index() * 0x9e3779b97f4a7c15ULL) >> 32);
}

bool ElementIndex::ExtendsAscendingRun(const Cell& cell) {
  const auto* integer = std::get_if<int64_t>(&cell);
  if (integer && (cells_.empty() || *integer > last_integer_)) {
    last_integer_ = *integer;
    cells_.push_back(cell);
    return true;
  }
  // The run ends: every cell kept so far goes into the table.
  is_ascending_ = false;
  while (cells_.size() * 2 > slots_.size()) slots_.resize(slots_.size() * 2);
  mask_ = slots_.size() - 1;
  for (size_t code = 0; code < cells_.size(); ++code) {
    Insert(HashOf(cells_[code]), static_cast<uint32_t>(code));
  }
  return false;
}

void ElementIndex::Insert(uint32_t hash, uint32_t code) {
  uint64_t slot = hash & mask_;
  while (slots_[slot] != 0) slot = (slot + 1) & mask_;
  slots_[slot] = (uint64_t{hash} << 32) | (uint64_t{code} + 1);
}

std::pair<uint32_t, bool> ElementIndex::Intern(const Cell& cell) {
  if (is_ascending_ && ExtendsAscendingRun(cell)) {
    return {static_cast<uint32_t>(cells_.size() - 1), true};
  }
  const uint32_t hash = HashOf(cell);
  for (uint64_t slot = hash & mask_;; slot = (slot + 1) & mask_) {
    const uint64_t entry = slots_[slot];
    if (entry == 0) {
      const auto code = static_cast<uint32_t>(cells_.size());
      cells_.push_back(cell);
      slots_[slot] = (uint64_t{hash} << 32) | (uint64_t{code} + 1);
      if (cells_.size() * 2 > slots_.size()) Grow();
      return {code, true};
    }
    if (static_cast<uint32_t>(entry >> 32) != hash) continue;
    const auto code = static_cast<uint32_t>((entry & 0xffffffffULL) - 1);
    if (cells_[code] == cell) return {code, false};
  }
}

void ElementIndex::Grow() {
  std::vector<uint64_t> old = std::move(slots_);
  slots_.assign(old.size() * 2, 0);
  mask_ = slots_.size() - 1;
  for (uint64_t entry : old) {
    if (entry != 0) {
      Insert(static_cast<uint32_t>(entry >> 32),
             static_cast<uint32_t>((entry & 0xffffffffULL) - 1));
    }
  }
}

std::vector<Cell> ElementIndex::TakeCells() {
  std::vector<Cell> cells = std::move(cells_);
  cells_.clear();
  slots_.assign(kFirstSlots, 0);
  mask_ = kFirstSlots - 1;
  is_ascending_ = true;
  return cells;
}

}  // namespace tessera::engine
