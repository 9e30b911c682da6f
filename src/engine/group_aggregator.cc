#include "engine/group_aggregator.h"

#include <algorithm>
#include <bit>
#include <condition_variable>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <type_traits>

#include "core/error.h"
#include "core/parallel.h"
#include "engine/radix_sort.h"

namespace tessera::engine {
namespace {

using model::AggregateFunction;

constexpr size_t kChunkRows = 1 << 16;
// Listed rows skip through the columns, which hardware prefetchers follow poorly: kernels over
// them ask for the values this many rows ahead.
constexpr size_t kPrefetchRows = 32;
constexpr uint64_t kEmptyKey = std::numeric_limits<uint64_t>::max();
constexpr uint64_t kMaxBitsetBits = uint64_t{1} << 27;
constexpr size_t kPairsBeforeCompaction = size_t{1} << 22;

// Chunk c folds into the partial state of stripe c % stripes, each stripe's chunks in increasing
// order, and the stripes' partials merge in stripe order: the sums do not depend on which thread
// ran what, so a result computed again (on this node or on another one with as many compute
// threads) has the very same values. Any thread takes the next chunk of any stripe no other
// thread holds, so the work still spreads over whichever threads are free.
class StripeClaims {
 public:
  struct Claim {
    size_t stripe;
    size_t chunk;
  };

  StripeClaims(size_t stripes, size_t chunks)
      : chunks_(chunks), next_(stripes), busy_(stripes, false) {
    std::iota(next_.begin(), next_.end(), size_t{0});
  }

  size_t stripes() const { return next_.size(); }

  // The next chunk of the free stripe with the most chunks left; waits while every stripe with
  // chunks left is held. Called once per chunk, so some stripe always has one left.
  Claim Take() {
    std::unique_lock lock(mutex_);
    for (;;) {
      std::optional<size_t> best;
      for (size_t s = 0; s < next_.size(); ++s) {
        if (busy_[s] || next_[s] >= chunks_) continue;
        if (!best || next_[s] < next_[*best]) best = s;
      }
      if (best) {
        busy_[*best] = true;
        const Claim claim{*best, next_[*best]};
        next_[*best] += next_.size();
        return claim;
      }
      released_.wait(lock);
    }
  }

  void Release(const Claim& claim) {
    {
      std::lock_guard lock(mutex_);
      busy_[claim.stripe] = false;
    }
    released_.notify_all();
  }

 private:
  const size_t chunks_;
  std::mutex mutex_;
  std::condition_variable released_;
  std::vector<size_t> next_;  // the next chunk of each stripe
  std::vector<bool> busy_;
};

// Few groups mean long chains of additions into one slot, each waiting for the one before; with
// lanes, consecutive rows add into different copies of their group's slot, folded when merging.
constexpr uint64_t kLanes = 8;
constexpr uint64_t kMaxKeysWithLanes = 256;

// Dense layouts with at most this many slots number them in 16 bits, which vector units multiply
// four times as many at once as 32-bit ones.
constexpr uint64_t kNarrowSlots = uint64_t{1} << 16;

struct Layout {
  std::vector<const CodeColumn*> columns;
  std::vector<uint64_t> cards;
  std::vector<uint64_t> strides;
  uint64_t key_space = 1;
  bool dense = true;
  uint64_t lanes = 1;  // slots per key in workers' partial states (dense layouts only)

  // When the attributes' codes do not fit one 64-bit key, the leading `combined_attributes` are
  // replaced by one column of their distinct combinations, numbered in code order (so key order
  // stays code order); combination_codes[a][c] is attribute a's code in combination c.
  size_t combined_attributes = 0;
  std::unique_ptr<CodeColumn> combined;
  std::vector<std::vector<uint32_t>> combination_codes;
};

bool FitsOneKey(const std::vector<uint64_t>& cards) {
  uint64_t key_space = 1;
  for (uint64_t card : cards) {
    if (key_space > (kEmptyKey - 1) / card) return false;
    key_space *= card;
  }
  return true;
}

// Numbers the distinct values of `keys` in increasing order; returns how many there are and
// replaces each key by its number.
uint64_t RankInPlace(std::vector<uint64_t>& keys, std::vector<uint64_t>& distinct) {
  distinct = keys;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  for (auto& key : keys) {
    key = static_cast<uint64_t>(std::lower_bound(distinct.begin(), distinct.end(), key) -
                                distinct.begin());
  }
  return distinct.size();
}

// Replaces the leading attributes by the column of their combinations, one attribute at a time,
// until the rest fits one key. A combination count never exceeds the row count, so it ends.
void CombineLeadingAttributes(const Dataset& dataset, const std::vector<int>& attributes,
                              Layout& layout) {
  const size_t rows = dataset.row_count();
  std::vector<uint64_t> combination(rows, 0);  // per row, its combination so far
  uint64_t combinations = 1;
  std::vector<std::vector<uint32_t>> codes;  // per combined attribute, per combination
  std::vector<uint64_t> rest(layout.cards);
  size_t k = 0;
  while (k < attributes.size()) {
    std::vector<uint64_t> remaining(rest.begin() + static_cast<long>(k), rest.end());
    remaining.push_back(std::max<uint64_t>(combinations, 1));
    if (k > 0 && FitsOneKey(remaining)) break;
    const CodeColumn& column = *layout.columns[k];
    const uint64_t card = layout.cards[k];
    for (size_t row = 0; row < rows; ++row)
      combination[row] = combination[row] * card + column[row];
    std::vector<uint64_t> distinct;
    combinations = RankInPlace(combination, distinct);
    // Each new combination is (previous combination, code of attribute k).
    std::vector<std::vector<uint32_t>> next(k + 1, std::vector<uint32_t>(combinations));
    for (uint64_t c = 0; c < combinations; ++c) {
      const uint64_t previous = distinct[c] / card;
      for (size_t a = 0; a < k; ++a) next[a][c] = codes[a][previous];
      next[k][c] = static_cast<uint32_t>(distinct[c] % card);
    }
    codes = std::move(next);
    ++k;
  }
  std::vector<uint32_t> narrow(combination.begin(), combination.end());
  layout.combined = std::make_unique<CodeColumn>(narrow, combinations);
  layout.combined_attributes = k;
  layout.combination_codes = std::move(codes);
  layout.columns.erase(layout.columns.begin(), layout.columns.begin() + static_cast<long>(k));
  layout.cards.erase(layout.cards.begin(), layout.cards.begin() + static_cast<long>(k));
  layout.columns.insert(layout.columns.begin(), layout.combined.get());
  layout.cards.insert(layout.cards.begin(), std::max<uint64_t>(combinations, 1));
}

Layout LayoutOf(const Dataset& dataset, const std::vector<int>& attributes) {
  Layout layout;
  for (int index : attributes) {
    const AttributeColumn& attribute = dataset.attribute(index);
    layout.columns.push_back(&attribute.codes);
    layout.cards.push_back(std::max<uint64_t>(attribute.dictionary.size(), 1));
  }
  if (!FitsOneKey(layout.cards)) CombineLeadingAttributes(dataset, attributes, layout);
  for (uint64_t card : layout.cards) layout.key_space *= card;
  layout.strides.assign(layout.cards.size(), 1);
  for (size_t i = layout.cards.size(); i-- > 1;) {
    layout.strides[i - 1] = layout.strides[i] * layout.cards[i];
  }
  layout.dense = layout.key_space <= kDenseSlots;
  if (layout.key_space <= kMaxKeysWithLanes) layout.lanes = kLanes;
  return layout;
}

// Which rows of the dataset a batch holds: a contiguous range (no filter, or a filter that kept
// every row of the batch) or the list a RowSelector wrote. Kernels are compiled once per kind so
// the contiguous one reads columns sequentially, without an index.
struct RangeRows {
  size_t first;
  size_t operator[](size_t j) const { return first + j; }
};

struct ListedRows {
  const uint32_t* rows;
  size_t operator[](size_t j) const { return rows[j]; }
};

// keys[j] = (the key of row j) * lanes + j % lanes, for `lanes` a power of two.
template <typename Rows, typename Key>
void ComputeKeys(const Layout& layout, Rows rows, size_t n, Key* keys, uint64_t lanes = 1) {
  const Key lane_mask = static_cast<Key>(lanes - 1);
  if (layout.columns.empty()) {
    for (size_t j = 0; j < n; ++j) keys[j] = static_cast<Key>(j) & lane_mask;
    return;
  }
  for (size_t a = 0; a < layout.columns.size(); ++a) {
    const Key stride = static_cast<Key>(layout.strides[a] * lanes);
    VisitCodes(*layout.columns[a], [&](const auto* codes) {
      if (a == 0) {
        for (size_t j = 0; j < n; ++j) {
          keys[j] = static_cast<Key>(codes[rows[j]]) * stride + (static_cast<Key>(j) & lane_mask);
        }
      } else {
        for (size_t j = 0; j < n; ++j) keys[j] += static_cast<Key>(codes[rows[j]]) * stride;
      }
    });
  }
}

// Open addressing, linear probing; maps a key to its slot (insertion order).
class KeyTable {
 public:
  KeyTable() { Rehash(1024); }

  uint32_t FindOrInsert(uint64_t key) {
    size_t position = Hash(key) & mask_;
    while (true) {
      Entry& entry = entries_[position];
      if (entry.key == key) return entry.slot;
      if (entry.key == kEmptyKey) {
        entry = {key, static_cast<uint32_t>(keys_.size())};
        keys_.push_back(key);
        if (keys_.size() * 2 > entries_.size()) Rehash(entries_.size() * 2);
        return static_cast<uint32_t>(keys_.size() - 1);
      }
      position = (position + 1) & mask_;
    }
  }

  size_t size() const { return keys_.size(); }
  const std::vector<uint64_t>& keys() const { return keys_; }

 private:
  struct Entry {
    uint64_t key;
    uint32_t slot;
  };

  static uint64_t Hash(uint64_t key) {
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return key;
  }

  void Rehash(size_t capacity) {
    entries_.assign(capacity, Entry{kEmptyKey, 0});
    mask_ = capacity - 1;
    for (uint32_t slot = 0; slot < keys_.size(); ++slot) {
      size_t position = Hash(keys_[slot]) & mask_;
      while (entries_[position].key != kEmptyKey) position = (position + 1) & mask_;
      entries_[position] = {keys_[slot], slot};
    }
  }

  std::vector<Entry> entries_;
  std::vector<uint64_t> keys_;
  size_t mask_ = 0;
};

// kAvgOfRows: an avg whose count is the group's rows (no counts column, no nulls), so only its
// sum is kept.
enum class Rollup { kSum, kRows, kMin, kMax, kAvg, kAvgOfRows, kDistinct, kNone };

Rollup RollupOf(const MetricColumn& column, bool full_grain) {
  switch (column.function) {
    case AggregateFunction::kSum:
      return Rollup::kSum;
    case AggregateFunction::kCount:
      return column.CountsRows() ? Rollup::kRows : Rollup::kSum;
    case AggregateFunction::kMin:
      return Rollup::kMin;
    case AggregateFunction::kMax:
      return Rollup::kMax;
    case AggregateFunction::kAvg:
      return column.counts || column.HasNulls() ? Rollup::kAvg : Rollup::kAvgOfRows;
    case AggregateFunction::kCountDistinct:
      if (column.counted_attribute >= 0) return Rollup::kDistinct;
      return full_grain ? Rollup::kSum : Rollup::kNone;
  }
  return Rollup::kNone;
}

struct MetricPlan {
  const MetricColumn* column = nullptr;
  Rollup rollup = Rollup::kNone;
  const CodeColumn* distinct_codes = nullptr;
  uint64_t distinct_card = 0;
  uint64_t words_per_slot = 0;  // > 0: bitset per slot
  // A sum whose column holds no -0.0, started at -0.0: a slot still at -0.0 has had no row, so
  // the folds need not mark the rows' slots (Aggregation::MarkWitnessedRows).
  bool witnesses_rows = false;
};

// One worker's groups and their accumulators.
struct Partial {
  size_t slots = 0;
  KeyTable table;              // hash layouts only
  std::vector<uint32_t> rows;  // rows per slot; just 0 or 1 when no metric counts rows
  struct Accumulator {
    std::vector<double> a;    // sum, min, max, avg's sum
    std::vector<double> b;    // avg's count
    std::vector<uint32_t> n;  // values seen (columns with nulls)
    std::vector<uint64_t> bits;
    std::vector<uint64_t> pairs;  // slot << 32 | code
    // Compacting again only once the pairs have doubled keeps the sorting amortised when the
    // distinct pairs alone exceed kPairsBeforeCompaction.
    size_t compact_pairs_at = kPairsBeforeCompaction;
  };
  std::vector<Accumulator> accumulators;
  // The sums folded with the rows (FoldRowsAndSums), one block per pass of up to kMaxFusedSums:
  // a slot's sums lie side by side, so a row adds into one place. Moved into the accumulators
  // before the partials merge.
  std::vector<std::vector<double>> fused;
  // Per min and max of one column folded together (FoldExtremes): {min, -max} per slot. Folded
  // into the accumulators before the partials merge.
  std::vector<std::vector<double>> extremes;
};

double InitialValue(Rollup rollup) {
  if (rollup == Rollup::kMin) return std::numeric_limits<double>::infinity();
  if (rollup == Rollup::kMax) return -std::numeric_limits<double>::infinity();
  return 0;
}

void Grow(Partial& partial, const std::vector<MetricPlan>& plans, size_t slots) {
  if (slots <= partial.slots) return;
  partial.rows.resize(slots, 0);
  for (size_t m = 0; m < plans.size(); ++m) {
    const MetricPlan& plan = plans[m];
    auto& accumulator = partial.accumulators[m];
    if (plan.rollup == Rollup::kSum || plan.rollup == Rollup::kMin || plan.rollup == Rollup::kMax ||
        plan.rollup == Rollup::kAvg || plan.rollup == Rollup::kAvgOfRows) {
      accumulator.a.resize(slots, plan.witnesses_rows ? -0.0 : InitialValue(plan.rollup));
      if (plan.column->HasNulls()) accumulator.n.resize(slots, 0);
    }
    if (plan.rollup == Rollup::kAvg) accumulator.b.resize(slots, 0);
    if (plan.words_per_slot > 0) accumulator.bits.resize(slots * plan.words_per_slot, 0);
  }
  partial.slots = slots;
}

template <bool kNulls, typename Rows, typename Slot, typename Update>
void Accumulate(const MetricColumn& column, Rows rows, const Slot* slots, size_t n,
                std::vector<uint32_t>& seen, Update update) {
  const double* values = column.values->data();
  for (size_t j = 0; j < n; ++j) {
    if constexpr (std::is_same_v<Rows, ListedRows>) {
      if (j + kPrefetchRows < n) __builtin_prefetch(values + rows[j + kPrefetchRows]);
    }
    const size_t row = rows[j];
    if constexpr (kNulls) {
      if (!column.IsValid(row)) continue;
      ++seen[slots[j]];
    }
    update(slots[j], values[row], row);
  }
}

template <typename Rows, typename Slot, typename Update>
void AccumulateValues(const MetricColumn& column, Rows rows, const Slot* slots, size_t n,
                      std::vector<uint32_t>& seen, Update update) {
  if (column.HasNulls()) {
    Accumulate<true>(column, rows, slots, n, seen, update);
  } else {
    Accumulate<false>(column, rows, slots, n, seen, update);
  }
}

void CompactPairs(std::vector<uint64_t>& pairs) {
  RadixSort(pairs);
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
}

template <typename Rows, typename Slot>
void AccumulateDistinct(const MetricPlan& plan, Partial::Accumulator& accumulator, Rows rows,
                        const Slot* slots, size_t n) {
  VisitCodes(*plan.distinct_codes, [&](const auto* codes) {
    if (plan.words_per_slot > 0) {
      uint64_t* bits = accumulator.bits.data();
      for (size_t j = 0; j < n; ++j) {
        const uint64_t bit = slots[j] * plan.words_per_slot * 64 + codes[rows[j]];
        bits[bit >> 6] |= uint64_t{1} << (bit & 63);
      }
      return;
    }
    for (size_t j = 0; j < n; ++j) {
      accumulator.pairs.push_back(uint64_t{slots[j]} << 32 | codes[rows[j]]);
    }
    if (accumulator.pairs.size() > accumulator.compact_pairs_at) {
      CompactPairs(accumulator.pairs);
      accumulator.compact_pairs_at = std::max(kPairsBeforeCompaction, 2 * accumulator.pairs.size());
    }
  });
}

template <typename Rows, typename Slot>
void AccumulateMetric(const MetricPlan& plan, Partial::Accumulator& acc, Rows rows,
                      const Slot* slots, size_t n) {
  const MetricColumn& column = *plan.column;
  double* a = acc.a.data();
  switch (plan.rollup) {
    case Rollup::kSum:
    case Rollup::kAvgOfRows:
      return AccumulateValues(column, rows, slots, n, acc.n,
                              [a](uint32_t slot, double v, size_t) { a[slot] += v; });
    case Rollup::kMin:
      return AccumulateValues(column, rows, slots, n, acc.n, [a](uint32_t slot, double v, size_t) {
        a[slot] = std::min(a[slot], v);
      });
    case Rollup::kMax:
      return AccumulateValues(column, rows, slots, n, acc.n, [a](uint32_t slot, double v, size_t) {
        a[slot] = std::max(a[slot], v);
      });
    case Rollup::kAvg: {
      double* b = acc.b.data();
      if (column.counts) {
        const double* counts = column.counts->data();
        return AccumulateValues(column, rows, slots, n, acc.n,
                                [a, b, counts](uint32_t slot, double v, size_t row) {
                                  a[slot] += v;
                                  b[slot] += counts[row];
                                });
      }
      return AccumulateValues(column, rows, slots, n, acc.n,
                              [a, b](uint32_t slot, double v, size_t) {
                                a[slot] += v;
                                b[slot] += 1;
                              });
    }
    case Rollup::kDistinct:
      return AccumulateDistinct(plan, acc, rows, slots, n);
    case Rollup::kRows:
    case Rollup::kNone:
      return;
  }
}

constexpr size_t kMaxFusedSums = 3;

// Two doubles added at once, each as a double is.
using DoublePair = double __attribute__((vector_size(16)));

// What a pass does with the partial's rows per slot.
enum class RowCounting { kCount, kMark, kNone };

// std::min and std::max, also for DoublePairs: a NaN value never replaces the folded one.
constexpr auto kPlus = [](auto x, auto y) { return x + y; };
constexpr auto kMinimum = [](auto x, auto y) { return y < x ? y : x; };
constexpr auto kMaximum = [](auto x, auto y) { return x < y ? y : x; };

// The least and the greatest value so far are kept as {min, -max}, so a value folds into both as
// the minimum of a pair (-max(m, v) is min(-m, -v) exactly).
inline void FoldIntoExtremes(double* extremes, double value) {
  DoublePair both;
  std::memcpy(&both, extremes, sizeof both);
  both = kMinimum(both, DoublePair{value, -value});
  std::memcpy(extremes, &both, sizeof both);
}

// What one pass over a batch folds per row, into the row's slot: its count (or mark), up to
// kMaxFusedSums sums side by side (`width` to a slot), and the extremes of the first column
// (two to a slot) when `extremes` is set.
struct PassTargets {
  RowCounting counting = RowCounting::kNone;
  uint32_t* counts = nullptr;
  const double* columns[kMaxFusedSums] = {};
  size_t width = 0;
  double* sums = nullptr;
  double* extremes = nullptr;
};

// Each row's slot is read once, and the row's values add into its group's sums together.
template <size_t K, RowCounting kCounting, bool kExtremes, typename Rows, typename Slot>
void FoldRowsAndSums(Rows rows, const Slot* slots, size_t n, const PassTargets& pass) {
  const double* values[K > 0 ? K : 1];
  std::copy(pass.columns, pass.columns + K, values);
  uint32_t* counts = pass.counts;
  double* sums = pass.sums;
  double* extremes = pass.extremes;
  for (size_t j = 0; j < n; ++j) {
    if constexpr (std::is_same_v<Rows, ListedRows>) {
      if (j + kPrefetchRows < n) {
        for (size_t k = 0; k < K; ++k) __builtin_prefetch(values[k] + rows[j + kPrefetchRows]);
      }
    }
    const size_t slot = slots[j];
    const size_t row = rows[j];
    if constexpr (kCounting == RowCounting::kCount) {
      ++counts[slot];
    } else if constexpr (kCounting == RowCounting::kMark) {
      counts[slot] = 1;  // a plain store, so rows of one group do not wait on each other
    }
    if constexpr (K >= 2) {
      DoublePair pair;
      std::memcpy(&pair, sums + slot * K, sizeof pair);
      pair += DoublePair{values[0][row], values[1][row]};
      std::memcpy(sums + slot * K, &pair, sizeof pair);
    }
    if constexpr (K % 2 == 1) sums[slot * K + K - 1] += values[K - 1][row];
    if constexpr (kExtremes && K > 0) FoldIntoExtremes(extremes + 2 * slot, values[0][row]);
  }
}

template <RowCounting kCounting, bool kExtremes, typename Rows, typename Slot>
void FoldRowsAndSums(Rows rows, const Slot* slots, size_t n, const PassTargets& pass) {
  switch (pass.width) {
    case 0:
      return FoldRowsAndSums<0, kCounting, false>(rows, slots, n, pass);
    case 1:
      return FoldRowsAndSums<1, kCounting, kExtremes>(rows, slots, n, pass);
    case 2:
      return FoldRowsAndSums<2, kCounting, kExtremes>(rows, slots, n, pass);
    default:
      return FoldRowsAndSums<3, kCounting, kExtremes>(rows, slots, n, pass);
  }
}

template <RowCounting kCounting, typename Rows, typename Slot>
void FoldRowsAndSums(Rows rows, const Slot* slots, size_t n, const PassTargets& pass) {
  if (pass.extremes) return FoldRowsAndSums<kCounting, true>(rows, slots, n, pass);
  FoldRowsAndSums<kCounting, false>(rows, slots, n, pass);
}

template <typename Rows, typename Slot>
void FoldRowsAndSums(Rows rows, const Slot* slots, size_t n, const PassTargets& pass) {
  switch (pass.counting) {
    case RowCounting::kCount:
      return FoldRowsAndSums<RowCounting::kCount>(rows, slots, n, pass);
    case RowCounting::kMark:
      return FoldRowsAndSums<RowCounting::kMark>(rows, slots, n, pass);
    case RowCounting::kNone:
      return FoldRowsAndSums<RowCounting::kNone>(rows, slots, n, pass);
  }
}

// Folds of one column over a batch, in eight independent chains (four pairs of doubles) so the
// operations overlap: chain c takes rows c, c + 8, ... and the chains fold together halving, c
// with c + 4, then c + 2, then c + 1. `fold` is applied to doubles and to DoublePairs alike.
template <typename Rows, typename Fold>
double FoldOf(const double* values, Rows rows, size_t n, double initial, Fold fold) {
  constexpr size_t kPairs = 4;
  DoublePair chains[kPairs];
  std::fill(chains, chains + kPairs, DoublePair{initial, initial});
  size_t j = 0;
  for (; j + 2 * kPairs <= n; j += 2 * kPairs) {
    for (size_t p = 0; p < kPairs; ++p) {
      chains[p] = fold(chains[p], DoublePair{values[rows[j + 2 * p]], values[rows[j + 2 * p + 1]]});
    }
  }
  double first = chains[0][0];
  for (; j < n; ++j) first = fold(first, values[rows[j]]);
  chains[0][0] = first;
  for (size_t width = kPairs / 2; width > 0; width /= 2) {
    for (size_t p = 0; p < width; ++p) chains[p] = fold(chains[p], chains[p + width]);
  }
  return fold(chains[0][0], chains[0][1]);
}

// The least and the greatest value of one column per slot, in one pass: slot s keeps
// {min, -max} at 2s.
template <typename Rows, typename Slot>
void FoldExtremes(const double* values, Rows rows, const Slot* slots, size_t n, double* extremes) {
  for (size_t j = 0; j < n; ++j) {
    if constexpr (std::is_same_v<Rows, ListedRows>) {
      if (j + kPrefetchRows < n) __builtin_prefetch(values + rows[j + kPrefetchRows]);
    }
    FoldIntoExtremes(extremes + 2 * size_t{slots[j]}, values[rows[j]]);
  }
}

// Rows that all belong to one group fold in registers instead of through per-row slots.
// Returns false when the metric needs the per-row path (nulls, count distinct).
template <typename Rows>
bool AccumulateInOneSlot(const MetricPlan& plan, Partial::Accumulator& acc, Rows rows, size_t n,
                         uint32_t slot) {
  if (plan.rollup == Rollup::kRows) return true;
  const MetricColumn& column = *plan.column;
  if (column.CountsRows() || column.HasNulls()) return false;
  const double* values = column.values->data();
  switch (plan.rollup) {
    case Rollup::kSum:
    case Rollup::kAvgOfRows:
      acc.a[slot] += FoldOf(values, rows, n, 0.0, kPlus);
      return true;
    case Rollup::kMin:
      acc.a[slot] = FoldOf(values, rows, n, acc.a[slot], kMinimum);
      return true;
    case Rollup::kMax:
      acc.a[slot] = FoldOf(values, rows, n, acc.a[slot], kMaximum);
      return true;
    case Rollup::kAvg:
      acc.a[slot] += FoldOf(values, rows, n, 0.0, kPlus);
      acc.b[slot] += column.counts ? FoldOf(column.counts->data(), rows, n, 0.0, kPlus)
                                   : static_cast<double>(n);
      return true;
    default:
      return false;
  }
}

class Aggregation {
 public:
  Aggregation(const Dataset& dataset, const std::vector<int>& attributes,
              const std::vector<int>& metric_columns, const RowSelector& selector,
              std::chrono::steady_clock::time_point deadline)
      : dataset_(dataset),
        layout_(LayoutOf(dataset, attributes)),
        selector_(selector),
        deadline_(deadline) {
    const bool full_grain = CoversEveryAttribute(attributes);
    for (int index : metric_columns) plans_.push_back(PlanOf(dataset.metric(index), full_grain));
    counts_rows_ = std::any_of(plans_.begin(), plans_.end(), [](const MetricPlan& plan) {
      return plan.rollup == Rollup::kRows || plan.rollup == Rollup::kAvgOfRows;
    });
    for (const MetricPlan& plan : plans_) fused_.push_back(FoldsAsPlainSum(plan));
    PlanPasses();
    PairExtremes();
    PlaceExtremesInPasses();
    if (!counts_rows_) ChooseRowWitness(metric_columns);
    narrow_slots_ = layout_.dense && layout_.key_space * layout_.lanes <= kNarrowSlots;
  }

  Groups Run(ThreadPool* pool) {
    const size_t chunks = (dataset_.row_count() + kChunkRows - 1) / kChunkRows;
    StripeClaims claims(std::max<size_t>(1, std::min(ParallelWorkers(pool), chunks)), chunks);
    partials_.resize(claims.stripes());
    if (!selector_.SelectsNone()) {
      ParallelFor(pool, chunks, [&](size_t, size_t) {
        const StripeClaims::Claim claim = claims.Take();
        try {
          RunChunk(claim.stripe, claim.chunk);
        } catch (...) {
          claims.Release(claim);
          throw;
        }
        claims.Release(claim);
      });
    }
    Partial merged = Merge();
    MarkWitnessedRows(merged);
    return Finish(merged);
  }

 private:
  // Sums without nulls fold with the row counts, a few columns per pass (FoldRowsAndSums).
  static bool FoldsAsPlainSum(const MetricPlan& plan) {
    return (plan.rollup == Rollup::kSum || plan.rollup == Rollup::kAvgOfRows) &&
           !plan.column->CountsRows() && !plan.column->HasNulls();
  }

  // The folded sums, kMaxFusedSums to a pass; a sum of a column already summed (a sum and an
  // average of one fact) copies the earlier one's sums rather than folding again.
  void PlanPasses() {
    copies_sums_of_.assign(plans_.size(), -1);
    for (size_t m = 0; m < plans_.size(); ++m) {
      if (!fused_[m]) continue;
      for (size_t earlier = 0; earlier < m; ++earlier) {
        if (fused_[earlier] && copies_sums_of_[earlier] < 0 &&
            plans_[earlier].column->values == plans_[m].column->values) {
          copies_sums_of_[m] = static_cast<int>(earlier);
          break;
        }
      }
      if (copies_sums_of_[m] >= 0) continue;
      if (passes_.empty() || passes_.back().size() == kMaxFusedSums) passes_.emplace_back();
      passes_.back().push_back(m);
    }
  }

  // A min and a max of one column without nulls fold in one pass.
  void PairExtremes() {
    in_extremes_.assign(plans_.size(), 0);
    for (size_t low = 0; low < plans_.size(); ++low) {
      if (plans_[low].rollup != Rollup::kMin || !FoldsPerRowAsPair(plans_[low])) continue;
      for (size_t high = 0; high < plans_.size(); ++high) {
        if (plans_[high].rollup != Rollup::kMax || in_extremes_[high] ||
            !FoldsPerRowAsPair(plans_[high]) ||
            plans_[high].column->values != plans_[low].column->values) {
          continue;
        }
        extremes_.push_back({low, high});
        in_extremes_[low] = in_extremes_[high] = 1;
        break;
      }
    }
  }

  // Extremes of a column a pass sums fold in that pass, the column moved first in it.
  void PlaceExtremesInPasses() {
    pass_extremes_.assign(passes_.size(), -1);
    for (size_t e = 0; e < extremes_.size(); ++e) {
      const std::vector<double>* values = plans_[extremes_[e].low].column->values.get();
      for (size_t p = 0; p < passes_.size() && !extremes_[e].in_pass; ++p) {
        std::vector<size_t>& pass = passes_[p];
        const auto summed = std::find_if(pass.begin(), pass.end(), [&](size_t m) {
          return plans_[m].column->values.get() == values;
        });
        if (pass_extremes_[p] >= 0 || summed == pass.end()) continue;
        std::iter_swap(pass.begin(), summed);
        pass_extremes_[p] = static_cast<int>(e);
        extremes_[e].in_pass = true;
      }
    }
  }

  static bool FoldsPerRowAsPair(const MetricPlan& plan) {
    return !plan.column->CountsRows() && !plan.column->HasNulls();
  }

  // The first folded sum whose column holds no -0.0, if any, tells which slots had rows.
  void ChooseRowWitness(const std::vector<int>& metric_columns) {
    for (size_t m = 0; m < plans_.size(); ++m) {
      if (fused_[m] && dataset_.HoldsNoNegativeZero(static_cast<size_t>(metric_columns[m]))) {
        plans_[m].witnesses_rows = true;
        row_witness_ = static_cast<int>(m);
        return;
      }
    }
  }

  bool CoversEveryAttribute(const std::vector<int>& attributes) const {
    for (size_t i = 0; i < dataset_.attributes().size(); ++i) {
      if (std::find(attributes.begin(), attributes.end(), static_cast<int>(i)) ==
          attributes.end()) {
        return false;
      }
    }
    return true;
  }

  MetricPlan PlanOf(const MetricColumn& column, bool full_grain) const {
    MetricPlan plan{&column, RollupOf(column, full_grain)};
    if (plan.rollup != Rollup::kDistinct) return plan;
    const AttributeColumn& counted = dataset_.attribute(column.counted_attribute);
    plan.distinct_codes = &counted.codes;
    plan.distinct_card = std::max<uint64_t>(counted.dictionary.size(), 1);
    const uint64_t words = (plan.distinct_card + 63) / 64;
    if (layout_.dense && layout_.key_space * words * 64 <= kMaxBitsetBits)
      plan.words_per_slot = words;
    return plan;
  }

  Partial& PartialOf(size_t worker) {
    auto& partial = partials_[worker];
    if (!partial) {
      partial = std::make_unique<Partial>();
      partial->accumulators.resize(plans_.size());
      partial->fused.resize(passes_.size());
      partial->extremes.resize(extremes_.size());
      if (layout_.dense) GrowFolded(*partial, layout_.key_space * layout_.lanes);
    }
    return *partial;
  }

  void RunChunk(size_t worker, size_t chunk) {
    if (std::chrono::steady_clock::now() > deadline_) {
      throw Error(ErrorCode::kTimeout,
                  "The computation ran beyond its time budget; ask for fewer attributes or filter "
                  "the data");
    }
    Partial& partial = PartialOf(worker);
    std::vector<uint32_t> rows(RowSelector::kBatch);
    std::vector<uint64_t> keys(RowSelector::kBatch);
    std::vector<uint32_t> slots(RowSelector::kBatch);
    const size_t chunk_end = std::min(dataset_.row_count(), (chunk + 1) * kChunkRows);
    for (size_t begin = chunk * kChunkRows; begin < chunk_end; begin += RowSelector::kBatch) {
      const size_t end = std::min(chunk_end, begin + RowSelector::kBatch);
      const RowSelector::Coverage coverage = selector_.Cover(begin, end);
      if (coverage == RowSelector::Coverage::kNone) continue;
      const size_t n = coverage == RowSelector::Coverage::kAll
                           ? end - begin
                           : selector_.Select(begin, end, rows.data());
      if (n == end - begin) {
        AggregateBatch(partial, begin, RangeRows{begin}, n, keys.data(), slots.data());
      } else if (n > 0) {
        AggregateBatch(partial, begin, ListedRows{rows.data()}, n, keys.data(), slots.data());
      }
    }
  }

  // Rows of the zone starting at `begin`.
  template <typename Rows>
  void AggregateBatch(Partial& partial, size_t begin, Rows rows, size_t n, uint64_t* keys,
                      uint32_t* slots) {
    if (const std::optional<uint64_t> key = ConstantKey(begin / CodeColumn::kZoneRows)) {
      AggregateOneGroup(partial, *key, rows, n, slots);
      return;
    }
    if (narrow_slots_) {
      uint16_t narrow[RowSelector::kBatch];
      ComputeKeys(layout_, rows, n, narrow, layout_.lanes);
      FoldBatch(partial, rows, narrow, n);
      return;
    }
    AssignSlots(partial, rows, n, keys, slots);
    FoldBatch(partial, rows, slots, n);
  }

  template <typename Rows, typename Slot>
  void FoldBatch(Partial& partial, Rows rows, const Slot* slots, size_t n) {
    FoldSums(partial, rows, slots, n);
    for (size_t e = 0; e < extremes_.size(); ++e) {
      if (extremes_[e].in_pass) continue;
      const double* values = plans_[extremes_[e].low].column->values->data();
      FoldExtremes(values, rows, slots, n, partial.extremes[e].data());
    }
    for (size_t m = 0; m < plans_.size(); ++m) {
      if (!fused_[m] && !in_extremes_[m]) {
        AccumulateMetric(plans_[m], partial.accumulators[m], rows, slots, n);
      }
    }
  }

  // Grow, and the blocks of folded sums and extremes alike.
  void GrowFolded(Partial& partial, size_t slots) const {
    Grow(partial, plans_, slots);
    for (std::vector<double>& block : partial.extremes) {
      block.resize(2 * slots, std::numeric_limits<double>::infinity());
    }
    for (size_t p = 0; p < passes_.size(); ++p) {
      const std::vector<size_t>& pass = passes_[p];
      std::vector<double>& block = partial.fused[p];
      const size_t grown_from = block.size();
      block.resize(slots * pass.size());  // geometrically, as slots grow a batch at a time
      for (size_t i = grown_from; i < block.size(); ++i) {
        block[i] = plans_[pass[i % pass.size()]].witnesses_rows ? -0.0 : 0.0;
      }
    }
  }

  // The row counts and the sums without nulls, a few columns per pass. Kept out of line: inlined
  // into AggregateBatch, the row-count loop ran 15% slower (count distinct per city, 10M rows).
  template <typename Rows, typename Slot>
  [[gnu::noinline]] void FoldSums(Partial& partial, Rows rows, const Slot* slots, size_t n) {
    PassTargets pass;
    pass.counting = counts_rows_        ? RowCounting::kCount
                    : row_witness_ >= 0 ? RowCounting::kNone
                                        : RowCounting::kMark;
    pass.counts = partial.rows.data();
    for (size_t p = 0; p < passes_.size(); ++p) {
      pass.width = passes_[p].size();
      for (size_t k = 0; k < pass.width; ++k) {
        pass.columns[k] = plans_[passes_[p][k]].column->values->data();
      }
      pass.sums = partial.fused[p].data();
      pass.extremes = pass_extremes_[p] >= 0
                          ? partial.extremes[static_cast<size_t>(pass_extremes_[p])].data()
                          : nullptr;
      FoldRowsAndSums(rows, slots, n, pass);
      pass.counting = RowCounting::kNone;
    }
    if (pass.counting != RowCounting::kNone) {
      pass.width = 0;
      FoldRowsAndSums(rows, slots, n, pass);
    }
  }

  // The group key of every row of `zone` when the zone maps show each grouping attribute holds
  // one element there (always, for the grand total).
  std::optional<uint64_t> ConstantKey(size_t zone) const {
    uint64_t key = 0;
    for (size_t a = 0; a < layout_.columns.size(); ++a) {
      const CodeColumn::Zone& range = layout_.columns[a]->zone(zone);
      if (range.min != range.max) return std::nullopt;
      key += range.min * layout_.strides[a];
    }
    return key;
  }

  template <typename Rows>
  void AggregateOneGroup(Partial& partial, uint64_t key, Rows rows, size_t n, uint32_t* slots) {
    uint32_t slot = 0;
    if (layout_.dense) {
      slot = static_cast<uint32_t>(key * layout_.lanes);
    } else {
      slot = partial.table.FindOrInsert(key);
      GrowFolded(partial, partial.table.size());
    }
    partial.rows[slot] = counts_rows_ ? partial.rows[slot] + static_cast<uint32_t>(n) : 1;
    for (size_t p = 0; p < passes_.size(); ++p) {
      for (size_t k = 0; k < passes_[p].size(); ++k) {
        const double* values = plans_[passes_[p][k]].column->values->data();
        partial.fused[p][slot * passes_[p].size() + k] += FoldOf(values, rows, n, 0.0, kPlus);
      }
    }
    bool slots_filled = false;
    for (size_t m = 0; m < plans_.size(); ++m) {
      if (fused_[m] || AccumulateInOneSlot(plans_[m], partial.accumulators[m], rows, n, slot))
        continue;
      if (!slots_filled) std::fill(slots, slots + n, slot);
      slots_filled = true;
      AccumulateMetric(plans_[m], partial.accumulators[m], rows, slots, n);
    }
  }

  template <typename Rows>
  void AssignSlots(Partial& partial, Rows rows, size_t n, uint64_t* keys, uint32_t* slots) {
    if (layout_.dense) {
      ComputeKeys(layout_, rows, n, slots, layout_.lanes);
      return;
    }
    ComputeKeys(layout_, rows, n, keys);
    for (size_t j = 0; j < n; ++j) slots[j] = partial.table.FindOrInsert(keys[j]);
    GrowFolded(partial, partial.table.size());
  }

  Partial Merge() {
    Partial merged;
    merged.accumulators.resize(plans_.size());
    if (layout_.dense) Grow(merged, plans_, layout_.key_space);
    for (auto& partial : partials_) {
      if (!partial) continue;
      std::vector<uint32_t> to_merged(partial->slots);
      for (uint32_t slot = 0; slot < partial->slots; ++slot) {
        to_merged[slot] = layout_.dense ? static_cast<uint32_t>(slot / layout_.lanes)
                                        : merged.table.FindOrInsert(partial->table.keys()[slot]);
      }
      Grow(merged, plans_, layout_.dense ? layout_.key_space : merged.table.size());
      Unfold(*partial);
      MergeInto(merged, *partial, to_merged);
      partial.reset();
    }
    return merged;
  }

  // Moves the folded sums and extremes of `partial` into its accumulators, where merging reads
  // them.
  void Unfold(Partial& partial) const {
    for (size_t e = 0; e < extremes_.size(); ++e) {
      std::vector<double>& low = partial.accumulators[extremes_[e].low].a;
      std::vector<double>& high = partial.accumulators[extremes_[e].high].a;
      const std::vector<double>& block = partial.extremes[e];
      for (size_t slot = 0; slot < partial.slots; ++slot) {
        low[slot] = kMinimum(low[slot], block[2 * slot]);
        high[slot] = kMaximum(high[slot], -block[2 * slot + 1]);
      }
    }
    for (size_t p = 0; p < passes_.size(); ++p) {
      const size_t width = passes_[p].size();
      for (size_t k = 0; k < width; ++k) {
        std::vector<double>& sums = partial.accumulators[passes_[p][k]].a;
        for (size_t slot = 0; slot < partial.slots; ++slot) {
          sums[slot] = partial.fused[p][slot * width + k];
        }
      }
    }
    for (size_t m = 0; m < plans_.size(); ++m) {
      if (copies_sums_of_[m] < 0) continue;
      const std::vector<double>& sums =
          partial.accumulators[static_cast<size_t>(copies_sums_of_[m])].a;
      std::copy(sums.begin(), sums.begin() + static_cast<long>(partial.slots),
                partial.accumulators[m].a.begin());
    }
  }

  void MergeInto(Partial& merged, const Partial& partial, const std::vector<uint32_t>& to_merged) {
    for (uint32_t slot = 0; slot < partial.slots; ++slot)
      merged.rows[to_merged[slot]] += partial.rows[slot];
    for (size_t m = 0; m < plans_.size(); ++m) {
      const MetricPlan& plan = plans_[m];
      auto& into = merged.accumulators[m];
      const auto& from = partial.accumulators[m];
      for (uint32_t slot = 0; slot < partial.slots; ++slot) {
        const uint32_t target = to_merged[slot];
        if (!from.a.empty()) {
          if (plan.rollup == Rollup::kMin) {
            into.a[target] = std::min(into.a[target], from.a[slot]);
          } else if (plan.rollup == Rollup::kMax) {
            into.a[target] = std::max(into.a[target], from.a[slot]);
          } else {
            into.a[target] += from.a[slot];
          }
        }
        if (!from.b.empty()) into.b[target] += from.b[slot];
        if (!from.n.empty()) into.n[target] += from.n[slot];
      }
      const uint64_t words = plan.words_per_slot;
      for (uint32_t slot = 0; slot < partial.slots && words > 0; ++slot) {
        for (uint64_t w = 0; w < words; ++w) {
          into.bits[to_merged[slot] * words + w] |= from.bits[slot * words + w];
        }
      }
      for (uint64_t pair : from.pairs) {
        into.pairs.push_back(uint64_t{to_merged[pair >> 32]} << 32 | (pair & 0xffffffffu));
      }
      if (!into.pairs.empty()) CompactPairs(into.pairs);
    }
  }

  void MarkWitnessedRows(Partial& merged) const {
    if (row_witness_ < 0) return;
    const std::vector<double>& sums = merged.accumulators[static_cast<size_t>(row_witness_)].a;
    for (size_t slot = 0; slot < merged.slots; ++slot) {
      const bool untouched = std::bit_cast<uint64_t>(sums[slot]) == std::bit_cast<uint64_t>(-0.0);
      if (!untouched && merged.rows[slot] == 0) merged.rows[slot] = 1;
    }
  }

  Groups Finish(const Partial& merged) {
    std::vector<uint32_t> order;  // merged slots of the groups, by key
    for (uint32_t slot = 0; slot < merged.slots; ++slot) {
      if (merged.rows[slot] > 0) order.push_back(slot);
    }
    // Like SQL, a grand total has one row even when no row passes.
    if (layout_.columns.empty() && order.empty()) {
      order.push_back(0);
    }
    auto key_of = [&](uint32_t slot) -> uint64_t {
      return layout_.dense ? slot : merged.table.keys()[slot];
    };
    if (!layout_.dense) {
      std::sort(order.begin(), order.end(),
                [&](uint32_t a, uint32_t b) { return key_of(a) < key_of(b); });
    }
    Groups groups;
    groups.count = order.size();
    groups.codes.assign(layout_.columns.size(), std::vector<uint32_t>(order.size()));
    for (size_t g = 0; g < order.size(); ++g) {
      const uint64_t key = key_of(order[g]);
      for (size_t a = 0; a < layout_.columns.size(); ++a) {
        groups.codes[a][g] = static_cast<uint32_t>((key / layout_.strides[a]) % layout_.cards[a]);
      }
    }
    ExpandCombinations(groups);
    for (size_t m = 0; m < plans_.size(); ++m) FinishMetric(merged, m, order, groups);
    return groups;
  }

  // Puts back the codes of the attributes a combination column stood for.
  void ExpandCombinations(Groups& groups) const {
    if (layout_.combined_attributes == 0) return;
    std::vector<std::vector<uint32_t>> expanded(layout_.combined_attributes,
                                                std::vector<uint32_t>(groups.count));
    for (size_t g = 0; g < groups.count; ++g) {
      const uint32_t combination = groups.codes[0][g];
      for (size_t a = 0; a < layout_.combined_attributes; ++a) {
        expanded[a][g] = layout_.combination_codes[a][combination];
      }
    }
    groups.codes.erase(groups.codes.begin());
    groups.codes.insert(groups.codes.begin(), std::make_move_iterator(expanded.begin()),
                        std::make_move_iterator(expanded.end()));
  }

  void FinishMetric(const Partial& merged, size_t m, const std::vector<uint32_t>& order,
                    Groups& groups) const {
    const MetricPlan& plan = plans_[m];
    const auto& acc = merged.accumulators[m];
    std::vector<double> values(order.size(), 0);
    std::vector<uint8_t> present(order.size(), 0);
    std::vector<uint32_t> distinct = plan.rollup == Rollup::kDistinct && plan.words_per_slot == 0
                                         ? DistinctFromPairs(acc.pairs, merged.slots)
                                         : std::vector<uint32_t>{};
    for (size_t g = 0; g < order.size(); ++g) {
      const uint32_t slot = order[g];
      const bool seen =
          slot < merged.slots && (acc.n.empty() ? merged.rows[slot] > 0 : acc.n[slot] > 0);
      switch (plan.rollup) {
        case Rollup::kSum:
        case Rollup::kMin:
        case Rollup::kMax:
          present[g] = seen;
          values[g] = seen ? acc.a[slot] : 0;
          break;
        case Rollup::kAvg:
          present[g] = slot < merged.slots && acc.b[slot] != 0;
          values[g] = present[g] ? acc.a[slot] / acc.b[slot] : 0;
          break;
        case Rollup::kAvgOfRows:
          present[g] = slot < merged.slots && merged.rows[slot] != 0;
          values[g] = present[g] ? acc.a[slot] / merged.rows[slot] : 0;
          break;
        case Rollup::kRows:
          values[g] = slot < merged.slots ? merged.rows[slot] : 0;
          present[g] = 1;
          break;
        case Rollup::kDistinct:
          if (slot >= merged.slots) break;
          values[g] = plan.words_per_slot > 0 ? BitsOf(acc.bits, slot, plan.words_per_slot)
                                              : distinct[slot];
          present[g] = 1;
          break;
        case Rollup::kNone:
          break;
      }
    }
    groups.values.push_back(std::move(values));
    groups.present.push_back(std::move(present));
  }

  static double BitsOf(const std::vector<uint64_t>& bits, uint32_t slot, uint64_t words) {
    uint64_t count = 0;
    for (uint64_t w = slot * words; w < (slot + 1) * words; ++w) count += std::popcount(bits[w]);
    return static_cast<double>(count);
  }

  static std::vector<uint32_t> DistinctFromPairs(const std::vector<uint64_t>& pairs, size_t slots) {
    std::vector<uint32_t> distinct(slots, 0);
    for (uint64_t pair : pairs) ++distinct[pair >> 32];  // pairs are unique after CompactPairs
    return distinct;
  }

  const Dataset& dataset_;
  Layout layout_;
  const RowSelector& selector_;
  std::chrono::steady_clock::time_point deadline_;
  std::vector<MetricPlan> plans_;
  bool counts_rows_ = false;
  int row_witness_ = -1;        // the plan whose sums tell which slots had rows, if any
  std::vector<uint8_t> fused_;  // per plan: folded by FoldSums
  std::vector<std::vector<size_t>> passes_;  // the folded plans, kMaxFusedSums to a pass
  std::vector<int> copies_sums_of_;          // per plan: the folded plan it copies, if any
  struct Extremes {
    size_t low;   // the plan of the min
    size_t high;  // the plan of the max, over the same values
    bool in_pass = false;
  };
  std::vector<Extremes> extremes_;
  std::vector<uint8_t> in_extremes_;  // per plan: its min or max folds with the other
  std::vector<int> pass_extremes_;    // per pass: the extremes it folds too, if any
  bool narrow_slots_ = false;         // slots fit 16 bits: keys computed eight to a vector
  std::vector<std::unique_ptr<Partial>> partials_;
};

}  // namespace

Groups AggregateGroups(const Dataset& dataset, const std::vector<int>& attributes,
                       const std::vector<int>& metric_columns, const RowSelector& selector,
                       ThreadPool* pool, std::chrono::steady_clock::time_point deadline) {
  return Aggregation(dataset, attributes, metric_columns, selector, deadline).Run(pool);
}

}  // namespace tessera::engine
