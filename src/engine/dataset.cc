#include "engine/dataset.h"

#include <bit>
#include <map>
#include <set>

namespace tessera::engine {
namespace {

bool HoldsNegativeZero(const std::vector<double>& values) {
  constexpr uint64_t kNegativeZero = uint64_t{1} << 63;
  bool found = false;
  for (double value : values) found |= std::bit_cast<uint64_t>(value) == kNegativeZero;
  return found;
}

}  // namespace

Dataset::Dataset(size_t row_count, std::vector<AttributeColumn> attributes,
                 std::vector<MetricColumn> metrics)
    : row_count_(row_count), attributes_(std::move(attributes)), metrics_(std::move(metrics)) {
  std::map<const std::vector<double>*, bool> scanned;  // buffers shared by several metrics
  for (const MetricColumn& metric : metrics_) {
    if (!metric.values) {
      no_negative_zero_.push_back(1);
      continue;
    }
    auto [at, inserted] = scanned.try_emplace(metric.values.get(), false);
    if (inserted) at->second = !HoldsNegativeZero(*metric.values);
    no_negative_zero_.push_back(at->second ? 1 : 0);
  }
}

int Dataset::AttributeIndex(std::string_view id) const {
  for (size_t i = 0; i < attributes_.size(); ++i) {
    if (attributes_[i].id == id) return static_cast<int>(i);
  }
  return -1;
}

int Dataset::MetricIndex(std::string_view id) const {
  for (size_t i = 0; i < metrics_.size(); ++i) {
    if (metrics_[i].id == id) return static_cast<int>(i);
  }
  return -1;
}

namespace {

// Each distinct buffer once.
template <typename Visit>
void ForEachBuffer(const std::vector<MetricColumn>& metrics, Visit visit) {
  std::set<const void*> seen;
  for (const auto& metric : metrics) {
    if (metric.values && seen.insert(metric.values.get()).second) {
      visit(metric.values->capacity() * sizeof(double), metric.values->size() * sizeof(double));
    }
    if (metric.valid && seen.insert(metric.valid.get()).second) {
      visit(metric.valid->capacity() * sizeof(uint64_t), metric.valid->size() * sizeof(uint64_t));
    }
    if (metric.counts && seen.insert(metric.counts.get()).second) {
      visit(metric.counts->capacity() * sizeof(double), metric.counts->size() * sizeof(double));
    }
  }
}

}  // namespace

size_t Dataset::MemoryBytes() const {
  size_t bytes = 0;
  for (const auto& attribute : attributes_) {
    bytes += attribute.codes.MemoryBytes() + attribute.dictionary.MemoryBytes();
  }
  ForEachBuffer(metrics_, [&](size_t held, size_t) { bytes += held; });
  return bytes;
}

size_t Dataset::RawBytes() const {
  size_t bytes = 0;
  for (const auto& attribute : attributes_)
    bytes += attribute.codes.size() * attribute.codes.width();
  ForEachBuffer(metrics_, [&](size_t, size_t used) { bytes += used; });
  return bytes;
}

}  // namespace tessera::engine
