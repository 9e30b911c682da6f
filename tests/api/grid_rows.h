// tests/api/grid_rows.h
//
// The rows of a v2 instance body, read the way the Python client reads them, and the same rows from
// independent SQL, compared with a relative tolerance on metric values.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
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

// The rows of a v2 body, read as the Python client reads them: per-page element lists indexed by
// headers.rows.
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

// SQL rows whose first `keys` columns are form values and the rest metric values.
inline std::vector<GridRow> RowsOfSql(const std::vector<std::vector<std::string>>& rows,
                                      size_t keys) {
  std::vector<GridRow> grid;
  for (const auto& row : rows) {
    GridRow out;
    for (size_t c = 0; c < row.size(); ++c) {
      if (c < keys) {
        out.forms.push_back(row[c]);
      } else if (row[c] == "<null>") {
        out.metrics.push_back(std::nullopt);
      } else {
        out.metrics.push_back(std::stod(row[c]));
      }
    }
    grid.push_back(std::move(out));
  }
  return grid;
}

inline bool Near(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a || !b) return a.has_value() == b.has_value();
  return std::abs(*a - *b) <= 1e-6 * std::max(1.0, std::abs(*b));
}

inline void ExpectSameRows(const std::vector<GridRow>& actual,
                           const std::vector<GridRow>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t r = 0; r < actual.size(); ++r) {
    ASSERT_EQ(actual[r].forms, expected[r].forms) << "row " << r;
    ASSERT_EQ(actual[r].metrics.size(), expected[r].metrics.size()) << "row " << r;
    for (size_t m = 0; m < actual[r].metrics.size(); ++m) {
      EXPECT_TRUE(Near(actual[r].metrics[m], expected[r].metrics[m]))
          << "row " << r << " metric " << m << ": " << actual[r].metrics[m].value_or(std::nan(""))
          << " vs " << expected[r].metrics[m].value_or(std::nan(""));
    }
  }
}

// The flat table's numbers as text the way the engine writes form values: integers plainly.
inline std::string IntegerText(const std::string& cell) {
  return std::to_string(static_cast<int64_t>(std::stod(cell)));
}

}  // namespace tessera::testing
