#include "engine/demo/facts.h"

#include <numeric>

#include "engine/demo/elements.h"

namespace tessera::engine::demo {
namespace {

// Relative order volume: by year (growth), by month (November and December peak) and by weekday
// (Monday first; Friday and Saturday busiest).
constexpr uint64_t kYearWeight[kYearCount] = {100, 122, 148};
constexpr uint64_t kMonthWeight[12] = {88, 84, 95, 96, 100, 98, 97, 101, 104, 108, 138, 165};
constexpr uint64_t kWeekdayWeight[7] = {96, 95, 97, 100, 110, 118, 84};

// Channel shares (Online, Retail Store, Partner) by year: online grows.
const std::vector<std::vector<uint64_t>> kChannelWeights = {
    {40, 45, 15}, {45, 40, 15}, {50, 35, 15}};

// Units 1..20: mostly one or two.
const std::vector<uint64_t> kUnitsWeights = {400, 220, 140, 95, 70, 52, 40, 32, 26, 21,
                                             17,  14,  12,  10, 8,  7,  6,  5,  4,  3};

constexpr int64_t kDiscountPercents[] = {0, 5, 10, 15, 20, 25, 30};
const std::vector<uint64_t> kDiscountWeights = {55, 18, 12, 7, 5, 2, 1};

constexpr uint64_t kNullDiscountPerMille = 10;
constexpr int64_t kCostJitterPermille = 40;

// Popularity: a larger offset means a flatter head.
constexpr uint64_t kCityZipfOffset = 3;
constexpr uint64_t kItemZipfOffset = 20;
constexpr uint64_t kCustomerZipfOffset = 500;

std::vector<int64_t> ShuffledIds(size_t count, DemoRandom& random) {
  std::vector<int64_t> ids(count);
  std::iota(ids.begin(), ids.end(), int64_t{1});
  random.Shuffle(ids);
  return ids;
}

std::vector<uint64_t> CumulativeDayWeights(const std::vector<CalendarDay>& days) {
  std::vector<uint64_t> cumulative;
  uint64_t total = 0;
  for (const CalendarDay& day : days) {
    total += kYearWeight[day.year - kFirstYear] * kMonthWeight[day.month - 1] *
             kWeekdayWeight[day.weekday];
    cumulative.push_back(total);
  }
  return cumulative;
}

std::vector<WeightedChoice> ChannelChoices() {
  std::vector<WeightedChoice> choices;
  for (const auto& weights : kChannelWeights) choices.emplace_back(weights);
  return choices;
}

void SetText(warehouse::SqlValue& cell, const std::string& text) {
  if (auto* existing = std::get_if<std::string>(&cell)) {
    existing->assign(text);
  } else {
    cell = text;
  }
}

double Amount(int64_t cents) { return static_cast<double>(cents) / 100.0; }

}  // namespace

FactRows::FactRows(const Catalog& catalog, int64_t rows, uint64_t seed)
    : catalog_(catalog),
      total_rows_(rows),
      random_(seed, kFactStream),
      cumulative_day_weight_(CumulativeDayWeights(catalog.days)),
      city_choice_(ZipfWeights(Countries().size() * kCitiesPerCountry, kCityZipfOffset)),
      item_choice_(ZipfWeights(catalog.item_price_cents.size(), kItemZipfOffset)),
      customer_choice_(ZipfWeights(catalog.customer_segment.size(), kCustomerZipfOffset)),
      channel_choice_by_year_(ChannelChoices()),
      units_choice_(kUnitsWeights),
      discount_choice_(kDiscountWeights) {
  DemoRandom popularity(seed, kPopularityStream);
  city_by_rank_ = ShuffledIds(city_choice_.size(), popularity);
  item_by_rank_ = ShuffledIds(item_choice_.size(), popularity);
  customer_by_rank_ = ShuffledIds(customer_choice_.size(), popularity);
}

int64_t FactRows::RowsOnDay(size_t day) const {
  using Wide = unsigned __int128;
  Wide total = cumulative_day_weight_.back();
  auto rows_through = [&](size_t d) {
    return static_cast<int64_t>(Wide(total_rows_) * cumulative_day_weight_[d] / total);
  };
  return rows_through(day) - (day == 0 ? 0 : rows_through(day - 1));
}

bool FactRows::Next(std::vector<warehouse::SqlValue>& row) {
  if (next_id_ > total_rows_) return false;
  if (!started_) {
    started_ = true;
    left_on_day_ = RowsOnDay(0);
  }
  while (left_on_day_ == 0) left_on_day_ = RowsOnDay(++day_);
  --left_on_day_;

  const CalendarDay& day = catalog_.days[day_];
  int64_t city = city_by_rank_[city_choice_.Sample(random_)];
  int64_t item = item_by_rank_[item_choice_.Sample(random_)];
  int64_t customer = customer_by_rank_[customer_choice_.Sample(random_)];
  auto channel = static_cast<int64_t>(
      channel_choice_by_year_[static_cast<size_t>(day.year - kFirstYear)].Sample(random_) + 1);
  auto units = static_cast<int64_t>(units_choice_.Sample(random_) + 1);
  bool discount_unknown = random_.Below(1000) < kNullDiscountPerMille;
  int64_t percent = kDiscountPercents[discount_choice_.Sample(random_)];
  if (discount_unknown) percent = 0;
  int64_t cost_permille = Subcategories()[SubcategoryOfItem(item)].cost_permille +
                          random_.Between(-kCostJitterPermille, kCostJitterPermille);

  int64_t gross = units * catalog_.item_price_cents[item - 1];
  int64_t discount = (gross * percent + 50) / 100;
  int64_t revenue = gross - discount;
  int64_t cost = (revenue * cost_permille + 500) / 1000;

  row.resize(10);
  row[0] = next_id_++;
  SetText(row[1], day.id);
  row[2] = city;
  row[3] = item;
  row[4] = customer;
  row[5] = channel;
  row[6] = units;
  row[7] = Amount(revenue);
  row[8] = Amount(cost);
  row[9] = discount_unknown ? warehouse::SqlValue(std::monostate{})
                            : warehouse::SqlValue(Amount(discount));
  return true;
}

}  // namespace tessera::engine::demo
