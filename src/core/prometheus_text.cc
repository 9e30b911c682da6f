#include "core/prometheus_text.h"

#include <fmt/format.h>

#include <cmath>

namespace tessera {
namespace {

void AppendEscaped(std::string& out, std::string_view value, bool is_label) {
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && is_label) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
}

void AppendValue(std::string& out, double value) {
  if (std::isinf(value)) {
    out += value > 0 ? "+Inf" : "-Inf";
  } else if (std::isnan(value)) {
    out += "NaN";
  } else if (value == std::trunc(value) && std::fabs(value) < 1e15) {
    out += fmt::format("{}", static_cast<long long>(value));
  } else {
    out += fmt::format("{}", value);
  }
}

}  // namespace

void PrometheusText::Family(std::string_view name, std::string_view type, std::string_view help) {
  text_ += "# HELP ";
  text_ += name;
  text_ += ' ';
  AppendEscaped(text_, help, /*is_label=*/false);
  text_ += "\n# TYPE ";
  text_ += name;
  text_ += ' ';
  text_ += type;
  text_ += '\n';
}

void PrometheusText::Sample(std::string_view name, const Labels& labels, double value) {
  text_ += name;
  if (!labels.empty()) {
    text_ += '{';
    for (size_t i = 0; i < labels.size(); ++i) {
      if (i > 0) text_ += ',';
      text_ += labels[i].first;
      text_ += "=\"";
      AppendEscaped(text_, labels[i].second, /*is_label=*/true);
      text_ += '"';
    }
    text_ += '}';
  }
  text_ += ' ';
  AppendValue(text_, value);
  text_ += '\n';
}

}  // namespace tessera
