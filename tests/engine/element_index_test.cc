// ElementIndex gives the first-seen code of every distinct cell: compared on random cells (many
// repeats, integers and reals of equal value, -0.0, NaN, long and short text, null) with a plain
// linear search under Cell's ==.
#include "engine/element_index.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace tessera::engine {
namespace {

// The first-seen code of `cell` by linear search, adding it when no kept cell equals it.
uint32_t ReferenceCode(std::vector<Cell>& seen, const Cell& cell) {
  for (size_t i = 0; i < seen.size(); ++i) {
    if (seen[i] == cell) return static_cast<uint32_t>(i);
  }
  seen.push_back(cell);
  return static_cast<uint32_t>(seen.size() - 1);
}

Cell RandomCell(std::mt19937_64& random) {
  const int64_t n = static_cast<int64_t>(random() % 400) - 200;
  switch (random() % 7) {
    case 0:
      return Cell();
    case 1:
      return n;
    case 2:
      return static_cast<double>(n) / 4;
    case 3:
      return n == 0 ? Cell(-0.0) : Cell(std::numeric_limits<double>::quiet_NaN());
    case 4:
      return "s" + std::to_string(n);
    case 5:
      return "a text longer than the short string buffer " + std::to_string(n);
    default:
      return std::string();
  }
}

TEST(ElementIndex, CodesFollowFirstAppearanceAsALinearSearchDoes) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    std::mt19937_64 random(seed);
    ElementIndex index;
    std::vector<Cell> seen;
    for (int i = 0; i < 5000; ++i) {
      const Cell cell = RandomCell(random);
      const size_t before = seen.size();
      const uint32_t expected = ReferenceCode(seen, cell);
      const auto [code, is_new] = index.Intern(cell);
      ASSERT_EQ(code, expected) << "seed " << seed << ", cell " << i;
      ASSERT_EQ(is_new, seen.size() > before);
    }
    ASSERT_EQ(index.size(), seen.size());
    const std::vector<Cell> cells = index.TakeCells();
    ASSERT_EQ(cells.size(), seen.size());
    for (size_t i = 0; i < cells.size(); ++i) {
      const bool both_nan = std::holds_alternative<double>(cells[i]) &&
                            std::isnan(std::get<double>(cells[i])) &&
                            std::isnan(std::get<double>(seen[i]));
      EXPECT_TRUE(both_nan || cells[i] == seen[i]) << i;
    }
    EXPECT_EQ(index.size(), 0u);
  }
}

// Interns `cell` into both and checks they agree.
void ExpectSameCode(ElementIndex& index, std::vector<Cell>& seen, const Cell& cell,
                    const std::string& where) {
  const size_t before = seen.size();
  const uint32_t expected = ReferenceCode(seen, cell);
  const auto [code, is_new] = index.Intern(cell);
  ASSERT_EQ(code, expected) << where;
  ASSERT_EQ(is_new, seen.size() > before) << where;
}

// Integers that only rise are kept without a lookup; whatever cell ends the run, and at whatever
// length, every code after it is still the first-seen one.
TEST(ElementIndex, AnAscendingRunOfIntegersMayEndAnywhere) {
  const Cell breakers[] = {Cell(int64_t{0}), Cell(int64_t{-5}), Cell(int64_t{3}),
                           Cell(3.0),        Cell("3"),         Cell(),
                           Cell(int64_t{1})};
  ElementIndex index;  // reused after TakeCells, which starts a new run
  for (size_t run :
       {size_t{0}, size_t{1}, size_t{2}, size_t{31}, size_t{32}, size_t{33}, size_t{700}}) {
    for (const Cell& breaker : breakers) {
      std::mt19937_64 random(run * 31 + breaker.index());
      std::vector<Cell> seen;
      const std::string where = "run " + std::to_string(run);
      for (size_t i = 0; i < run; ++i) {
        ExpectSameCode(index, seen, Cell(static_cast<int64_t>(i * 3)), where);
      }
      ExpectSameCode(index, seen, breaker, where + ", breaker");
      for (int i = 0; i < 1500; ++i) {
        const Cell cell = random() % 2 == 0 ? Cell(static_cast<int64_t>(random() % (run * 3 + 9)))
                                            : RandomCell(random);
        ExpectSameCode(index, seen, cell, where + ", cell " + std::to_string(i));
      }
      ASSERT_EQ(index.TakeCells().size(), seen.size()) << where;
    }
  }
}

TEST(ElementIndex, IntegerAndRealOfOneValueAreTwoCellsAndZeroSignsOne) {
  ElementIndex index;
  EXPECT_EQ(index.Intern(Cell(int64_t{3})), std::make_pair(0u, true));
  EXPECT_EQ(index.Intern(Cell(3.0)), std::make_pair(1u, true));
  EXPECT_EQ(index.Intern(Cell(0.0)), std::make_pair(2u, true));
  EXPECT_EQ(index.Intern(Cell(-0.0)), std::make_pair(2u, false));
  EXPECT_EQ(index.Intern(Cell(int64_t{3})), std::make_pair(0u, false));
}

TEST(ElementIndex, HoldsAMillionDistinctIntegers) {
  ElementIndex index;
  for (int64_t i = 0; i < 1000000; ++i) ASSERT_EQ(index.Intern(Cell(i * 7919)).first, i);
  for (int64_t i = 0; i < 1000000; i += 997) {
    ASSERT_EQ(index.Intern(Cell(i * 7919)), std::make_pair(static_cast<uint32_t>(i), false));
  }
}

}  // namespace
}  // namespace tessera::engine
