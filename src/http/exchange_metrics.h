// http/exchange_metrics.h
//
// Request counts and latencies of one server, by route, for its /metrics page:
//   tessera_http_requests_total{method, route, code}             counter
//   tessera_http_request_duration_seconds{method, route}          histogram
// `route` is the route template that answered ("/api/reports/{id}"), or "unmatched". Methods other
// than the standard ones count as "other", so a client cannot grow the series without bound.
// Record() may be called from many threads at once; a series is created on its first request.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <utility>

#include "core/latency_histogram.h"
#include "core/prometheus_text.h"
#include "http/server.h"

namespace tessera::http {

class ExchangeMetrics {
 public:
  void Record(const Exchange& exchange);
  void WriteTo(PrometheusText& out) const;

 private:
  struct Series {
    LatencyHistogram latency;
    std::mutex mutex;
    std::map<int, uint64_t> by_status;  // guarded by `mutex`
  };
  using Key = std::pair<std::string, std::string>;  // method, route

  Series& SeriesFor(std::string_view method, std::string_view route);

  mutable std::shared_mutex mutex_;
  std::map<Key, std::unique_ptr<Series>, std::less<>> series_;
};

}  // namespace tessera::http
