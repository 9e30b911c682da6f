#include "http/exchange_metrics.h"

#include <array>

namespace tessera::http {
namespace {

std::string_view MethodLabel(std::string_view method) {
  static constexpr std::array<std::string_view, 7> kStandard = {"GET",    "POST", "PUT",    "PATCH",
                                                                "DELETE", "HEAD", "OPTIONS"};
  for (std::string_view standard : kStandard) {
    if (method == standard) return standard;
  }
  return "other";
}

}  // namespace

ExchangeMetrics::Series& ExchangeMetrics::SeriesFor(std::string_view method,
                                                    std::string_view route) {
  Key key{std::string(method), std::string(route)};
  {
    std::shared_lock lock(mutex_);
    if (auto it = series_.find(key); it != series_.end()) return *it->second;
  }
  std::unique_lock lock(mutex_);
  auto& series = series_[std::move(key)];
  if (!series) series = std::make_unique<Series>();
  return *series;
}

void ExchangeMetrics::Record(const Exchange& exchange) {
  Series& series = SeriesFor(MethodLabel(exchange.method),
                             exchange.route.empty() ? "unmatched" : exchange.route);
  series.latency.Observe(exchange.seconds);
  std::lock_guard lock(series.mutex);
  ++series.by_status[exchange.status];
}

void ExchangeMetrics::WriteTo(PrometheusText& out) const {
  std::shared_lock lock(mutex_);
  out.Family("tessera_http_requests_total", "counter",
             "HTTP requests answered, by route and status.");
  for (const auto& [key, series] : series_) {
    std::lock_guard series_lock(series->mutex);
    for (const auto& [status, count] : series->by_status) {
      const std::string code = std::to_string(status);
      out.Sample("tessera_http_requests_total",
                 {{"method", key.first}, {"route", key.second}, {"code", code}},
                 static_cast<double>(count));
    }
  }
  out.Family("tessera_http_request_duration_seconds", "histogram",
             "Time from a request's header to its response written, by route.");
  for (const auto& [key, series] : series_) {
    series->latency.WriteTo(out, "tessera_http_request_duration_seconds",
                            {{"method", key.first}, {"route", key.second}});
  }
}

}  // namespace tessera::http
