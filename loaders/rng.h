// A small, fast, portable random generator for augmentations and shuffling. Its stream is fully
// defined here (no std:: distributions, whose output differs between standard libraries), so a
// (seed, epoch, sample) triple gives the same augmentation on every platform and worker count.
#pragma once

#include <cstdint>

namespace jetchar::loaders {

class Rng {
 public:
  /// A generator for one stream; streams from different (seed, epoch, index) never coincide in practice.
  explicit Rng(std::uint64_t seed = 0) { reseed(seed); }
  Rng(std::uint64_t seed, std::uint64_t epoch, std::uint64_t index) { reseed(seed, epoch, index); }

  void reseed(std::uint64_t seed) {
    std::uint64_t s = seed;
    for (auto& word : state_) word = splitmix(s);
  }
  void reseed(std::uint64_t seed, std::uint64_t epoch, std::uint64_t index) {
    std::uint64_t s = seed;
    std::uint64_t mixed = splitmix(s) ^ (epoch * 0xD1B54A32D192ED03ULL);
    mixed = splitmix(mixed) ^ (index * 0x9E3779B97F4A7C15ULL);
    reseed(splitmix(mixed));
  }

  /// xoshiro256** (Blackman & Vigna): 64 random bits.
  std::uint64_t next_u64() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// Uniform integer in [0, n) for n > 0 (Lemire's multiply-shift; bias below 2^-64 * n, irrelevant here).
  std::uint64_t below(std::uint64_t n) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(next_u64()) * n) >> 64);
  }
  /// Uniform integer in [lo, hi] (inclusive), as torch.randint(lo, hi + 1).
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(below(static_cast<std::uint64_t>(hi - lo) + 1));
  }
  bool bernoulli(double p) { return uniform() < p; }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static std::uint64_t splitmix(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  std::uint64_t state_[4];
};

}  // namespace jetchar::loaders
