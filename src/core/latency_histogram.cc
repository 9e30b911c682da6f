#include "core/latency_histogram.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace tessera {

void LatencyHistogram::Observe(double seconds) {
  seconds = std::max(seconds, 0.0);
  auto bound = std::lower_bound(kBoundsSeconds.begin(), kBoundsSeconds.end(), seconds);
  if (bound != kBoundsSeconds.end()) {
    buckets_[bound - kBoundsSeconds.begin()].fetch_add(1, std::memory_order_relaxed);
  }
  count_.fetch_add(1, std::memory_order_relaxed);
  sum_microseconds_.fetch_add(static_cast<uint64_t>(std::llround(seconds * 1e6)),
                              std::memory_order_relaxed);
}

void LatencyHistogram::WriteTo(PrometheusText& out, std::string_view name,
                               const PrometheusText::Labels& labels) const {
  const std::string bucket_name = std::string(name) + "_bucket";
  PrometheusText::Labels bucket_labels = labels;
  bucket_labels.emplace_back("le", "");
  uint64_t cumulative = 0;
  for (size_t i = 0; i < kBoundsSeconds.size(); ++i) {
    cumulative += buckets_[i].load(std::memory_order_relaxed);
    const std::string bound = fmt::format("{}", kBoundsSeconds[i]);
    bucket_labels.back().second = bound;
    out.Sample(bucket_name, bucket_labels, static_cast<double>(cumulative));
  }
  // Read after the buckets, so +Inf is never below the last finite bucket.
  const uint64_t total = std::max(count(), cumulative);
  bucket_labels.back().second = "+Inf";
  out.Sample(bucket_name, bucket_labels, static_cast<double>(total));
  out.Sample(std::string(name) + "_sum", labels,
             static_cast<double>(sum_microseconds_.load(std::memory_order_relaxed)) / 1e6);
  out.Sample(std::string(name) + "_count", labels, static_cast<double>(total));
}

}  // namespace tessera
