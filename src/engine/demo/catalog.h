// engine/demo/catalog.h
//
// What the demo generator decides once per seed, before any row is written: the calendar, every
// item's list price and every customer's segment. Fixed sizes: 3 years of days from 2022-01-01,
// 125 items per subcategory (5,000), 10,000 customers. Ids are 1-based positions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::engine::demo {

inline constexpr int kFirstYear = 2022;
inline constexpr int kYearCount = 3;
inline constexpr int kItemsPerSubcategory = 125;
inline constexpr int kCustomerCount = 10000;

struct CalendarDay {
  std::string id;  // "yyyy-MM-dd"
  int year = 0;
  int month = 0;    // 1..12
  int weekday = 0;  // 0 = Monday
};

struct Catalog {
  std::vector<CalendarDay> days;
  std::vector<int64_t> item_price_cents;  // [item_id - 1]
  std::vector<int> customer_segment;      // [customer_id - 1], index into CustomerSegments()
};

Catalog BuildCatalog(uint64_t seed);

int ItemCount();
int SubcategoryOfItem(int64_t item_id);  // index into Subcategories()

std::string MonthId(int year, int month);      // "2024-01"
std::string QuarterId(int year, int quarter);  // "2024-Q1"

// Independent random streams drawn from one seed.
enum Stream : uint64_t { kPriceStream = 1, kSegmentStream, kPopularityStream, kFactStream };

}  // namespace tessera::engine::demo
