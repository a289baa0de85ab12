#include "loaders/text/pretraining_instances.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>

namespace jetchar::loaders::text {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

constexpr std::int32_t kCls = 2;
constexpr std::int32_t kSep = 3;

using Documents = std::vector<std::vector<std::vector<std::int32_t>>>;

std::vector<std::int32_t> sequence(const PretrainingInstances& instances, std::size_t i) {
  return {instances.ids.begin() + static_cast<std::ptrdiff_t>(instances.starts[i]),
          instances.ids.begin() + static_cast<std::ptrdiff_t>(instances.starts[i + 1])};
}

// A sentence of `n` distinct ids starting at `first`.
std::vector<std::int32_t> sentence(std::int32_t first, std::size_t n) {
  std::vector<std::int32_t> ids(n);
  std::iota(ids.begin(), ids.end(), first);
  return ids;
}

TEST(PretrainingInstances, SentencesOfADocumentAreSplitIntoSegmentsAAndB) {
  // Two sentences of 3 tokens fit one sequence of 16: A is the first, B the one that follows it.
  const Documents documents = {{sentence(10, 3), sentence(20, 3)}};
  const auto instances = pack_pretraining_instances(documents, kCls, kSep, {16, 0.0, 1});
  ASSERT_EQ(instances.size(), 1u);
  EXPECT_EQ(sequence(instances, 0), (std::vector<std::int32_t>{kCls, 10, 11, 12, kSep, 20, 21, 22, kSep}));
  EXPECT_EQ(instances.second[0], 5u);
  EXPECT_EQ(instances.truncated_tokens, 0u);
}

TEST(PretrainingInstances, AOneSentenceChunkIsASingleSegmentAndDocumentsNeverMix) {
  const Documents documents = {{sentence(10, 4)}, {sentence(20, 2), {}, sentence(30, 2)}};
  const auto instances = pack_pretraining_instances(documents, kCls, kSep, {16, 0.0, 1});
  ASSERT_EQ(instances.size(), 2u);
  EXPECT_EQ(sequence(instances, 0), (std::vector<std::int32_t>{kCls, 10, 11, 12, 13, kSep}));
  EXPECT_EQ(instances.second[0], instances.starts[1]);
  EXPECT_EQ(sequence(instances, 1), (std::vector<std::int32_t>{kCls, 20, 21, kSep, 30, 31, kSep}));
}

TEST(PretrainingInstances, ChunksEndAtTheTargetLengthAndLongPairsAreCut) {
  // max_length 8 holds 5 tokens of A and B: sentences of 3 and 3 reach it, then 4 and 6 (cut by 5).
  const Documents documents = {{sentence(10, 3), sentence(20, 3), sentence(30, 4), sentence(40, 6)}};
  const auto instances = pack_pretraining_instances(documents, kCls, kSep, {8, 0.0, 7});
  ASSERT_EQ(instances.size(), 2u);
  for (std::size_t i = 0; i < instances.size(); ++i) {
    const auto ids = sequence(instances, i);
    EXPECT_LE(ids.size(), 8u);
    EXPECT_EQ(ids.front(), kCls);
    EXPECT_EQ(ids.back(), kSep);
  }
  EXPECT_EQ(sequence(instances, 0).size(), 8u);
  EXPECT_EQ(instances.truncated_tokens, 1u + 5u);
  // The longer segment loses a token at a time (B 6 -> 3, then both in turn): A keeps 3 of its 4
  // ids and B 2 of its 6, each a consecutive run since tokens go from the ends.
  const auto second = sequence(instances, 1);
  ASSERT_EQ(second.size(), 8u);
  EXPECT_EQ(second[4], kSep);
  EXPECT_EQ(second[2], second[1] + 1);
  EXPECT_EQ(second[3], second[2] + 1);
  EXPECT_EQ(second[6], second[5] + 1);
  EXPECT_GE(second[1], 30);
  EXPECT_GE(second[5], 40);
}

TEST(PretrainingInstances, TheSameSeedPacksTheSameWayAndShortSequencesAppear) {
  Documents documents;
  for (int d = 0; d < 20; ++d) {
    auto& document = documents.emplace_back();
    for (int s = 0; s < 12; ++s) document.push_back(sentence(100 * d + 5 * s, 5));
  }
  const auto a = pack_pretraining_instances(documents, kCls, kSep, {32, 0.5, 3});
  const auto b = pack_pretraining_instances(documents, kCls, kSep, {32, 0.5, 3});
  const auto other = pack_pretraining_instances(documents, kCls, kSep, {32, 0.5, 4});
  EXPECT_EQ(a.ids, b.ids);
  EXPECT_EQ(a.starts, b.starts);
  EXPECT_EQ(a.second, b.second);
  EXPECT_NE(a.starts, other.starts);
  // short_seq_prob 0.5: some documents were packed to a shorter target than 29 tokens.
  const auto full = pack_pretraining_instances(documents, kCls, kSep, {32, 0.0, 3});
  EXPECT_GT(a.size(), full.size());
}

TEST(PretrainingInstances, OptionsOutOfRangeAreRefused) {
  EXPECT_THAT(
      [] {
        pack_pretraining_instances({}, kCls, kSep, {4, 0.1, 1});
      },
      ThrowsMessage<std::invalid_argument>(HasSubstr("max_length 4 leaves no room")));
  EXPECT_THAT(
      [] {
        pack_pretraining_instances({}, kCls, kSep, {8, 1.5, 1});
      },
      ThrowsMessage<std::invalid_argument>(HasSubstr("short_seq_prob 1.5 is not a probability")));
}

}  // namespace
}  // namespace jetchar::loaders::text
