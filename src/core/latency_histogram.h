// core/latency_histogram.h
//
// Durations counted into fixed buckets, from many threads without a lock. The bucket bounds (in
// seconds) span a cached metadata call to a long report: 1 ms ... 60 s. WriteTo() adds the
// histogram's `_bucket` (cumulative, `le` label, ending with +Inf), `_sum` and `_count` lines to
// a Prometheus family the caller has started.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>

#include "core/prometheus_text.h"

namespace tessera {

class LatencyHistogram {
 public:
  static constexpr std::array<double, 14> kBoundsSeconds = {
      0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60};

  void Observe(double seconds);

  uint64_t count() const { return count_.load(std::memory_order_relaxed); }

  // `labels` are the series' own; `le` is appended to them on the bucket lines.
  void WriteTo(PrometheusText& out, std::string_view name,
               const PrometheusText::Labels& labels) const;

 private:
  std::array<std::atomic<uint64_t>, kBoundsSeconds.size()> buckets_{};  // not cumulative
  std::atomic<uint64_t> count_{0};
  std::atomic<uint64_t> sum_microseconds_{0};
};

}  // namespace tessera
