#include "engine/demo/random.h"

#include <algorithm>

#include "core/error.h"

namespace tessera::engine::demo {
namespace {

uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t RotateLeft(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

DemoRandom::DemoRandom(uint64_t seed, uint64_t stream) {
  uint64_t mix = seed ^ (stream * 0xD1B54A32D192ED03ull);
  for (uint64_t& word : state_) word = SplitMix64(mix);
}

uint64_t DemoRandom::Next() {
  uint64_t result = RotateLeft(state_[1] * 5, 7) * 9;
  uint64_t t = state_[1] << 17;
  state_[2] ^= state_[0];
  state_[3] ^= state_[1];
  state_[1] ^= state_[2];
  state_[0] ^= state_[3];
  state_[2] ^= t;
  state_[3] = RotateLeft(state_[3], 45);
  return result;
}

uint64_t DemoRandom::Below(uint64_t bound) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * bound) >> 64);
}

int64_t DemoRandom::Between(int64_t low, int64_t high) {
  return low + static_cast<int64_t>(Below(static_cast<uint64_t>(high - low) + 1));
}

WeightedChoice::WeightedChoice(const std::vector<uint64_t>& weights) {
  uint64_t total = 0;
  cumulative_.reserve(weights.size());
  for (uint64_t weight : weights) cumulative_.push_back(total += weight);
  if (total == 0) throw Error(ErrorCode::kInternal, "a weighted choice needs a positive weight");
}

size_t WeightedChoice::Sample(DemoRandom& random) const {
  uint64_t point = random.Below(cumulative_.back());
  return static_cast<size_t>(std::upper_bound(cumulative_.begin(), cumulative_.end(), point) -
                             cumulative_.begin());
}

std::vector<uint64_t> ZipfWeights(size_t n, uint64_t offset) {
  constexpr uint64_t kScale = uint64_t{1} << 40;
  std::vector<uint64_t> weights(n);
  for (size_t rank = 0; rank < n; ++rank) weights[rank] = kScale / (rank + 1 + offset);
  return weights;
}

}  // namespace tessera::engine::demo
