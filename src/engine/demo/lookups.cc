#include "engine/demo/lookups.h"

#include <cstdio>

#include "core/error.h"
#include "engine/demo/elements.h"

namespace tessera::engine::demo {
namespace {

warehouse::SqlValue Id(size_t zero_based) { return static_cast<int64_t>(zero_based + 1); }
warehouse::SqlValue Text(std::string_view text) { return std::string(text); }

// "Customer 00042": zero-padded so names sort like ids.
std::string Numbered(std::string_view prefix, int number, int digits) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%0*d", digits, number);
  return std::string(prefix) + buffer;
}

int QuarterOf(int month) { return (month - 1) / 3 + 1; }

Rows Years() {
  Rows rows;
  for (int year = kFirstYear; year < kFirstYear + kYearCount; ++year) {
    rows.push_back({int64_t{year}});
  }
  return rows;
}

Rows Quarters() {
  Rows rows;
  for (int year = kFirstYear; year < kFirstYear + kYearCount; ++year) {
    for (int quarter = 1; quarter <= 4; ++quarter) {
      rows.push_back({QuarterId(year, quarter), int64_t{year}});
    }
  }
  return rows;
}

Rows Months() {
  Rows rows;
  for (int year = kFirstYear; year < kFirstYear + kYearCount; ++year) {
    for (int month = 1; month <= 12; ++month) {
      std::string name = std::string(MonthNames()[month - 1]) + " " + std::to_string(year);
      rows.push_back({MonthId(year, month), name, QuarterId(year, QuarterOf(month))});
    }
  }
  return rows;
}

Rows Days(const Catalog& catalog) {
  Rows rows;
  for (const CalendarDay& day : catalog.days) {
    rows.push_back({day.id, MonthId(day.year, day.month)});
  }
  return rows;
}

Rows Names(std::span<const std::string_view> names) {
  Rows rows;
  for (size_t i = 0; i < names.size(); ++i) rows.push_back({Id(i), Text(names[i])});
  return rows;
}

Rows CountryRows() {
  Rows rows;
  auto countries = Countries();
  for (size_t i = 0; i < countries.size(); ++i) {
    rows.push_back({Id(i), Text(countries[i].name), Id(static_cast<size_t>(countries[i].region))});
  }
  return rows;
}

Rows Cities() {
  Rows rows;
  auto countries = Countries();
  for (size_t country = 0; country < countries.size(); ++country) {
    for (std::string_view city : countries[country].cities) {
      rows.push_back({Id(rows.size()), Text(city), Id(country)});
    }
  }
  return rows;
}

Rows SubcategoryRows() {
  Rows rows;
  auto subcategories = Subcategories();
  for (size_t i = 0; i < subcategories.size(); ++i) {
    rows.push_back(
        {Id(i), Text(subcategories[i].name), Id(static_cast<size_t>(subcategories[i].category))});
  }
  return rows;
}

Rows Items(const Catalog& catalog) {
  Rows rows;
  auto subcategories = Subcategories();
  for (size_t item = 0; item < catalog.item_price_cents.size(); ++item) {
    int subcategory = SubcategoryOfItem(static_cast<int64_t>(item + 1));
    int number = static_cast<int>(item % kItemsPerSubcategory) + 1;
    std::string name = Numbered(std::string(subcategories[subcategory].name) + " Item ", number, 3);
    rows.push_back({Id(item), name, Id(static_cast<size_t>(subcategory)),
                    static_cast<double>(catalog.item_price_cents[item]) / 100.0});
  }
  return rows;
}

Rows Customers(const Catalog& catalog) {
  Rows rows;
  for (size_t i = 0; i < catalog.customer_segment.size(); ++i) {
    rows.push_back({Id(i), Numbered("Customer ", static_cast<int>(i + 1), 5),
                    Id(static_cast<size_t>(catalog.customer_segment[i]))});
  }
  return rows;
}

}  // namespace

Rows LookupRows(std::string_view table, const Catalog& catalog) {
  if (table == "lu_year") return Years();
  if (table == "lu_quarter") return Quarters();
  if (table == "lu_month") return Months();
  if (table == "lu_day") return Days(catalog);
  if (table == "lu_region") return Names(Regions());
  if (table == "lu_country") return CountryRows();
  if (table == "lu_city") return Cities();
  if (table == "lu_category") return Names(Categories());
  if (table == "lu_subcategory") return SubcategoryRows();
  if (table == "lu_item") return Items(catalog);
  if (table == "lu_customer_segment") return Names(CustomerSegments());
  if (table == "lu_customer") return Customers(catalog);
  if (table == "lu_channel") return Names(Channels());
  throw Error(ErrorCode::kInternal, "'" + std::string(table) + "' is not a demo lookup table");
}

}  // namespace tessera::engine::demo
