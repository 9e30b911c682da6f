#include "engine/demo/catalog.h"

#include "engine/demo/elements.h"
#include "engine/demo/random.h"

namespace tessera::engine::demo {
namespace {

// 2022-01-01 was a Saturday.
constexpr int kFirstWeekday = 5;

// Shares of customers per segment, in CustomerSegments() order.
const std::vector<uint64_t> kSegmentWeights = {50, 20, 15, 8, 7};

bool IsLeapYear(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

int DaysInMonth(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeapYear(year) ? 29 : kDays[month - 1];
}

std::string TwoDigits(int value) {
  return std::string{static_cast<char>('0' + value / 10), static_cast<char>('0' + value % 10)};
}

std::vector<CalendarDay> BuildCalendar() {
  std::vector<CalendarDay> days;
  int weekday = kFirstWeekday;
  for (int year = kFirstYear; year < kFirstYear + kYearCount; ++year) {
    for (int month = 1; month <= 12; ++month) {
      for (int day = 1; day <= DaysInMonth(year, month); ++day) {
        days.push_back({MonthId(year, month) + "-" + TwoDigits(day), year, month, weekday});
        weekday = (weekday + 1) % 7;
      }
    }
  }
  return days;
}

// Skewed towards the cheap end of the subcategory's range; always ends in .99.
int64_t ListPriceCents(const Subcategory& subcategory, DemoRandom& random) {
  constexpr int64_t kSteps = 1000000;
  int64_t u = static_cast<int64_t>(random.Below(kSteps + 1));
  int64_t span = subcategory.max_price_dollars - subcategory.min_price_dollars;
  int64_t dollars = subcategory.min_price_dollars + span * u / kSteps * u / kSteps;
  return dollars * 100 + 99;
}

}  // namespace

Catalog BuildCatalog(uint64_t seed) {
  Catalog catalog;
  catalog.days = BuildCalendar();
  DemoRandom prices(seed, kPriceStream);
  catalog.item_price_cents.reserve(static_cast<size_t>(ItemCount()));
  for (const Subcategory& subcategory : Subcategories()) {
    for (int i = 0; i < kItemsPerSubcategory; ++i) {
      catalog.item_price_cents.push_back(ListPriceCents(subcategory, prices));
    }
  }
  DemoRandom segments(seed, kSegmentStream);
  WeightedChoice segment_choice(kSegmentWeights);
  catalog.customer_segment.reserve(kCustomerCount);
  for (int i = 0; i < kCustomerCount; ++i) {
    catalog.customer_segment.push_back(static_cast<int>(segment_choice.Sample(segments)));
  }
  return catalog;
}

int ItemCount() { return static_cast<int>(Subcategories().size()) * kItemsPerSubcategory; }

int SubcategoryOfItem(int64_t item_id) {
  return static_cast<int>((item_id - 1) / kItemsPerSubcategory);
}

std::string MonthId(int year, int month) { return std::to_string(year) + "-" + TwoDigits(month); }

std::string QuarterId(int year, int quarter) {
  return std::to_string(year) + "-Q" + std::to_string(quarter);
}

}  // namespace tessera::engine::demo
