#include "loaders/text/masked_lm_masking.h"

#include <gtest/gtest.h>

#include <vector>

namespace jetchar::loaders::text {
namespace {

// [PAD]=0 [CLS]=2 [SEP]=3 [MASK]=4; words from 10 in a vocabulary of 1000.
constexpr MaskingTokens kTokens{2, 3, 0, 4, 1000};

// [CLS] 10..(10+words-1) [SEP] then padding up to `length`.
std::vector<std::int64_t> sequence(std::size_t words, std::size_t length) {
  std::vector<std::int64_t> ids(length, 0);
  ids[0] = 2;
  for (std::size_t i = 0; i < words; ++i) ids[1 + i] = static_cast<std::int64_t>(10 + i);
  ids[1 + words] = 3;
  return ids;
}

TEST(MaskedLmMasking, FifteenPercentOfTheTokensNeverSpecialsWithTheirOriginalAsTarget) {
  const auto original = sequence(38, 48);  // 40 tokens with [CLS] and [SEP]: round(6.0) = 6 masked
  auto ids = original;
  std::vector<std::int64_t> targets(48, 7);
  Rng rng(5);
  ASSERT_EQ(mask_tokens(ids, targets, 40, kTokens, 0.15, rng), 6u);
  std::size_t scored = 0;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (targets[i] == kIgnoredTarget) {
      EXPECT_EQ(ids[i], original[i]) << i;
      continue;
    }
    ++scored;
    EXPECT_EQ(targets[i], original[i]) << i;
    EXPECT_TRUE(i >= 1 && i <= 38) << "a special or padding position was masked: " << i;
  }
  EXPECT_EQ(scored, 6u);
}

TEST(MaskedLmMasking, EightyTenTenReplacementOverManyDraws) {
  const auto original = sequence(98, 100);
  std::size_t masked = 0, unchanged = 0, random = 0, total = 0;
  for (std::uint64_t sample = 0; sample < 2000; ++sample) {
    auto ids = original;
    std::vector<std::int64_t> targets(100);
    Rng rng(11, 0, sample);
    total += mask_tokens(ids, targets, 100, kTokens, 0.15, rng);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (targets[i] == kIgnoredTarget) continue;
      if (ids[i] == kTokens.mask_id) {
        ++masked;
      } else if (ids[i] == original[i]) {
        ++unchanged;
      } else {
        ++random;
        EXPECT_LT(ids[i], kTokens.vocab_size);
      }
    }
  }
  EXPECT_EQ(total, 2000u * 15u);
  // 30,000 draws: the shares are within 1 % of 0.8 / 0.1 / 0.1 (a random draw may repeat the
  // original token once in a thousand, counting as unchanged).
  EXPECT_NEAR(static_cast<double>(masked) / total, 0.8, 0.01);
  EXPECT_NEAR(static_cast<double>(unchanged) / total, 0.1, 0.01);
  EXPECT_NEAR(static_cast<double>(random) / total, 0.1, 0.01);
}

TEST(MaskedLmMasking, TheSameStreamMasksTheSameWayAndShortSequencesGetOne) {
  const auto original = sequence(30, 40);
  auto a = original, b = original, c = original;
  std::vector<std::int64_t> ta(40), tb(40), tc(40);
  Rng ra(1, 2, 3), rb(1, 2, 3), rc(1, 3, 3);
  mask_tokens(a, ta, 32, kTokens, 0.15, ra);
  mask_tokens(b, tb, 32, kTokens, 0.15, rb);
  mask_tokens(c, tc, 32, kTokens, 0.15, rc);
  EXPECT_EQ(a, b);
  EXPECT_EQ(ta, tb);
  EXPECT_NE(ta, tc);  // another epoch masks anew

  auto tiny = sequence(1, 4);  // [CLS] w [SEP] [PAD]: round(0.45) = 0, at least one
  std::vector<std::int64_t> targets(4);
  Rng rng(1);
  EXPECT_EQ(mask_tokens(tiny, targets, 3, kTokens, 0.15, rng), 1u);
  EXPECT_EQ(targets[1], 10);
  std::vector<std::int64_t> specials = {2, 3, 0, 0};
  EXPECT_EQ(mask_tokens(specials, targets, 2, kTokens, 0.15, rng), 0u);
  EXPECT_EQ(targets, (std::vector<std::int64_t>(4, kIgnoredTarget)));
}

}  // namespace
}  // namespace jetchar::loaders::text
