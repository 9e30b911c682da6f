// core/prometheus_text.h
//
// Writes metrics in the Prometheus text exposition format (version 0.0.4):
//   # HELP tessera_sessions Sessions in the storage service.
//   # TYPE tessera_sessions gauge
//   tessera_sessions 3
//   tessera_http_requests_total{method="GET",route="/api/projects",code="200"} 12
// Family() starts a metric family (its HELP and TYPE lines); Sample() adds one line to it. Label
// values are escaped (backslash, double quote, newline); integral values print without a
// fraction, infinities as +Inf/-Inf. Names are the caller's to keep valid
// ([a-zA-Z_:][a-zA-Z0-9_:]*).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera {

class PrometheusText {
 public:
  using Labels = std::vector<std::pair<std::string_view, std::string_view>>;

  // `type`: "counter", "gauge" or "histogram".
  void Family(std::string_view name, std::string_view type, std::string_view help);
  void Sample(std::string_view name, const Labels& labels, double value);
  void Sample(std::string_view name, double value) { Sample(name, {}, value); }

  const std::string& text() const { return text_; }
  static constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

 private:
  std::string text_;
};

}  // namespace tessera
