// engine/demo/elements.h
//
// The fixed element values of the demo warehouse (demo/SCHEMA.md, shared/bench/README.md): they
// never depend on the seed, so bundles, dashboards and the benchmark's query set can name them.
// Ids are 1-based positions in these lists. Names are unique within each list (city names across
// all countries).
#pragma once

#include <array>
#include <span>
#include <string_view>

namespace tessera::engine::demo {

inline constexpr int kCitiesPerCountry = 10;

struct Country {
  std::string_view name;
  int region;  // index into Regions()
  std::array<std::string_view, kCitiesPerCountry> cities;
};

struct Subcategory {
  std::string_view name;
  int category;  // index into Categories()
  int min_price_dollars;
  int max_price_dollars;
  int cost_permille;  // typical cost as a share of revenue, in thousandths
};

std::span<const std::string_view> Regions();           // 8, includes "Western Europe"
std::span<const Country> Countries();                  // 30
std::span<const std::string_view> Categories();        // 4
std::span<const Subcategory> Subcategories();          // 40, 10 per category
std::span<const std::string_view> CustomerSegments();  // 5
std::span<const std::string_view> Channels();          // 3
std::span<const std::string_view> MonthNames();        // 12, "January" ...

}  // namespace tessera::engine::demo
