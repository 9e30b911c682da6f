#include "engine/demo/random.h"

#include <gtest/gtest.h>

#include <vector>

namespace tessera::engine::demo {
namespace {

std::vector<uint64_t> Draw(demo::DemoRandom random, int count) {
  std::vector<uint64_t> values;
  for (int i = 0; i < count; ++i) values.push_back(random.Next());
  return values;
}

TEST(DemoRandom, TheSameSeedAndStreamRepeatTheSequence) {
  EXPECT_EQ(Draw(demo::DemoRandom(42, 1), 100), Draw(demo::DemoRandom(42, 1), 100));
  EXPECT_NE(Draw(demo::DemoRandom(42, 1), 100), Draw(demo::DemoRandom(42, 2), 100));
  EXPECT_NE(Draw(demo::DemoRandom(42, 1), 100), Draw(demo::DemoRandom(43, 1), 100));
}

TEST(DemoRandom, BelowAndBetweenStayInTheirRanges) {
  demo::DemoRandom random(7, 0);
  for (int i = 0; i < 10000; ++i) {
    EXPECT_LT(random.Below(13), 13u);
    int64_t value = random.Between(-40, 40);
    EXPECT_GE(value, -40);
    EXPECT_LE(value, 40);
  }
}

TEST(WeightedChoice, FollowsTheWeightsAndNeverPicksAZeroWeight) {
  demo::WeightedChoice choice({1, 0, 3});
  demo::DemoRandom random(1, 0);
  int counts[3] = {0, 0, 0};
  for (int i = 0; i < 40000; ++i) ++counts[choice.Sample(random)];

  EXPECT_EQ(counts[1], 0);
  EXPECT_NEAR(counts[2] / static_cast<double>(counts[0]), 3.0, 0.2);
}

TEST(ZipfWeights, DecreaseWithRank) {
  auto weights = demo::ZipfWeights(100, 5);

  EXPECT_EQ(weights.size(), 100u);
  EXPECT_GT(weights[0], weights[1]);
  EXPECT_GT(weights[1], weights[99]);
  EXPECT_NEAR(weights[0] / static_cast<double>(weights[94]), 100.0 / 6.0, 0.01);
}

}  // namespace
}  // namespace tessera::engine::demo
