// engine/demo/random.h
//
// The demo generator's randomness: a seeded xoshiro256** generator (seeded through SplitMix64)
// and integer-weighted choices. Everything is integer arithmetic, so the same seed draws the
// same numbers on every platform, compiler and standard library — which std::*_distribution
// does not promise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace tessera::engine::demo {

class DemoRandom {
 public:
  // `stream` separates independent sequences drawn from one seed.
  DemoRandom(uint64_t seed, uint64_t stream);

  uint64_t Next();
  // Uniform in [0, bound); bound > 0. Lemire's multiply-high, without the rejection step: the
  // bias is below 2^-40 for the bounds the generator uses.
  uint64_t Below(uint64_t bound);
  // Uniform in [low, high].
  int64_t Between(int64_t low, int64_t high);

  template <typename T>
  void Shuffle(std::vector<T>& values) {
    for (size_t i = values.size(); i > 1; --i) std::swap(values[i - 1], values[Below(i)]);
  }

 private:
  uint64_t state_[4];
};

// A choice of index 0..n-1 with probability proportional to integer weights, sampled by a
// binary search over the cumulative weights (built once).
class WeightedChoice {
 public:
  explicit WeightedChoice(const std::vector<uint64_t>& weights);

  size_t Sample(DemoRandom& random) const;
  size_t size() const { return cumulative_.size(); }

 private:
  std::vector<uint64_t> cumulative_;
};

// Zipf-like weights for ranks 0..n-1: weight(r) proportional to 1 / (r + 1 + offset). A larger
// offset flattens the head.
std::vector<uint64_t> ZipfWeights(size_t n, uint64_t offset);

}  // namespace tessera::engine::demo
