// tests/model/small_bundle.h
//
// A valid bundle of two tables' worth of schema and one report in a temporary directory; tests
// break or extend one file at a time and read it back.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "model/bundle/bundle.h"
#include "support/temp_dir.h"

namespace tessera::testing {

class SmallBundle {
 public:
  SmallBundle() {
    Write("project.yaml", "name: Shop\n");
    Write("tables.yaml",
          "tables:\n"
          "  - name: lu_region\n"
          "    columns:\n"
          "      - {name: region_id, type: integer}\n"
          "      - {name: region_name, type: string}\n"
          "  - name: lu_city\n"
          "    columns:\n"
          "      - {name: city_id, type: integer}\n"
          "      - {name: city_name, type: string}\n"
          "      - {name: region_id, type: integer}\n"
          "  - name: sales\n"
          "    columns:\n"
          "      - {name: city_id, type: integer}\n"
          "      - {name: revenue, type: real}\n");
    Write("attributes.yaml",
          "attributes:\n"
          "  - name: Region\n"
          "    table: lu_region\n"
          "    forms:\n"
          "      - {name: ID, column: region_id}\n"
          "      - {name: DESC, column: region_name}\n"
          "  - name: City\n"
          "    table: lu_city\n"
          "    parent: Region\n"
          "    forms:\n"
          "      - {name: ID, column: city_id}\n"
          "      - {name: DESC, column: city_name}\n");
    Write("facts.yaml",
          "facts:\n"
          "  - name: Revenue\n"
          "    tables: [sales]\n"
          "    expression: revenue\n");
    Write("metrics.yaml",
          "metrics:\n"
          "  - name: Revenue\n"
          "    function: sum\n"
          "    fact: Revenue\n");
    Write("reports/sales.yaml",
          "name: Sales\n"
          "rows: [City]\n"
          "columns: [Revenue]\n");
  }

  void Write(const std::string& file, const std::string& text) const {
    const std::filesystem::path path = dir_.path() / file;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }

  model::bundle::Bundle Read() const { return model::bundle::ReadBundle(dir_.path()); }

  // ReadBundle's problems; none when it succeeds.
  std::vector<std::string> Problems() const {
    try {
      model::bundle::ReadBundle(dir_.path());
    } catch (const model::bundle::BundleError& e) {
      return e.problems();
    }
    return {};
  }

 private:
  TempDir dir_;
};

}  // namespace tessera::testing
