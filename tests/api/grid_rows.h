// tests/api/grid_rows.h
//
// The rows of a v2 instance body, read the way the Python client reads them (spec 02 §7.5).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/json.h"

namespace tessera::testing {

// One grid row: the attributes' form values, then the metrics' raw values.
struct GridRow {
  std::vector<std::string> forms;
  std::vector<std::optional<double>> metrics;
};

// The rows of a v2 body, read as the Python client reads them (spec 02 §7.5): per-page element
// lists indexed by headers.rows.
inline std::vector<GridRow> RowsOfV2(const Json& body) {
  std::vector<GridRow> rows;
  const Json& grid = body["definition"]["grid"];
  const Json& headers = body["data"]["headers"]["rows"];
  const Json& raw = body["data"]["metricValues"]["raw"];
  for (size_t r = 0; r < headers.size(); ++r) {
    GridRow row;
    for (size_t j = 0; j < grid["rows"].size(); ++j) {
      const Json& element = grid["rows"][j]["elements"][headers[r][j].get<size_t>()];
      EXPECT_EQ(element["formValues"].size(), grid["rows"][j]["forms"].size());
      for (const auto& value : element["formValues"]) row.forms.push_back(value);
    }
    for (const auto& value : raw[r]) {
      row.metrics.push_back(value.is_null() ? std::nullopt
                                            : std::optional<double>(value.get<double>()));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace tessera::testing
