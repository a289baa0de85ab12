#include "experiments/frontier/batch_frontier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace jetchar::experiments {
namespace {

// A prober for the search's logic alone: batches up to `largest` fit. The real probes (a child
// process training under a budget) are exercised by tests/cli/frontier_command_test.cpp.
struct ThresholdProber {
  std::int64_t largest;
  std::vector<std::int64_t> asked;
  ProbeOutcome operator()(const ProbeRequest& request) {
    asked.push_back(request.micro_batch);
    EXPECT_EQ(request.accumulate, 1);
    ProbeOutcome outcome;
    outcome.status = request.micro_batch <= largest ? ProbeStatus::kFits : ProbeStatus::kOutOfMemory;
    return outcome;
  }
};

ProbeRequest base_request() {
  ProbeRequest request;
  request.model = "bert-tiny";
  request.sequence_length = 64;
  return request;
}

TEST(BatchFrontierTest, DoublesThenBisectsToTheLargestBatchThatFits) {
  for (const std::int64_t largest : {1, 2, 3, 5, 8, 37, 64, 100, 1000}) {
    ThresholdProber prober{largest, {}};
    const auto frontier = search_batch_frontier(base_request(), [&](const ProbeRequest& r) { return prober(r); }, {});
    ASSERT_TRUE(frontier.largest_batch) << largest;
    EXPECT_EQ(*frontier.largest_batch, largest);
    ASSERT_TRUE(frontier.smallest_failing_batch);
    EXPECT_EQ(*frontier.smallest_failing_batch, largest + 1);
    EXPECT_EQ(frontier.probes.size(), prober.asked.size());
    // About 2·log2(largest) probes, never one batch twice.
    EXPECT_LE(static_cast<double>(prober.asked.size()), 2 * std::log2(static_cast<double>(largest)) + 3) << largest;
    auto sorted = prober.asked;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << largest;
  }
}

TEST(BatchFrontierTest, StopsAtTheMaxBatchWhenItFitsAndReportsNoneWhenNothingFits) {
  ThresholdProber roomy{1'000'000, {}};
  FrontierSearchOptions options;
  options.max_batch = 48;
  const auto capped = search_batch_frontier(
      base_request(), [&](const ProbeRequest& r) { return roomy(r); }, options);
  EXPECT_EQ(capped.largest_batch, 48);
  EXPECT_FALSE(capped.smallest_failing_batch);
  EXPECT_EQ(roomy.asked, (std::vector<std::int64_t>{1, 2, 4, 8, 16, 32, 48}));

  ThresholdProber none{0, {}};
  const auto empty = search_batch_frontier(base_request(), [&](const ProbeRequest& r) { return none(r); }, {});
  EXPECT_FALSE(empty.largest_batch);
  EXPECT_EQ(empty.smallest_failing_batch, 1);

  // A start above the frontier bisects below it.
  ThresholdProber small{5, {}};
  options.start_batch = 16;
  const auto below = search_batch_frontier(
      base_request(), [&](const ProbeRequest& r) { return small(r); }, options);
  EXPECT_EQ(below.largest_batch, 5);
  EXPECT_EQ(below.smallest_failing_batch, 6);
}

TEST(BatchFrontierTest, AProbeThatFailsForAnotherReasonEndsTheSearchNamingIt) {
  const Prober failing = [](const ProbeRequest& request) {
    ProbeOutcome outcome;
    outcome.status = request.micro_batch < 4 ? ProbeStatus::kFits : ProbeStatus::kFailed;
    outcome.error = "index out of range in self";
    return outcome;
  };
  try {
    search_batch_frontier(base_request(), failing, {});
    FAIL() << "a failed probe was taken for a verdict";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("batch 4 failed"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("index out of range in self"), std::string::npos) << error.what();
  }
  FrontierSearchOptions bad;
  bad.start_batch = 0;
  EXPECT_THROW(search_batch_frontier(base_request(), failing, bad), std::invalid_argument);
  bad.start_batch = 8;
  bad.max_batch = 4;
  EXPECT_THROW(search_batch_frontier(base_request(), failing, bad), std::invalid_argument);
}

TEST(BatchFrontierTest, SplitsAreTheDivisorsLargestMicroBatchFirst) {
  using Splits = std::vector<std::pair<std::int64_t, std::int64_t>>;
  EXPECT_EQ(accumulation_splits(12), (Splits{{12, 1}, {6, 2}, {4, 3}, {3, 4}, {2, 6}, {1, 12}}));
  EXPECT_EQ(accumulation_splits(7), (Splits{{7, 1}, {1, 7}}));
  EXPECT_EQ(accumulation_splits(1), (Splits{{1, 1}}));
  EXPECT_THROW(accumulation_splits(0), std::invalid_argument);

  std::vector<std::pair<std::int64_t, std::int64_t>> asked;
  const Prober record = [&](const ProbeRequest& request) {
    asked.emplace_back(request.micro_batch, request.accumulate);
    EXPECT_EQ(request.steps, 3);
    ProbeOutcome outcome;
    outcome.status = ProbeStatus::kFits;
    return outcome;
  };
  const auto splits = measure_splits(base_request(), 4, 3, record);
  EXPECT_EQ(asked, (Splits{{4, 1}, {2, 2}, {1, 4}}));
  ASSERT_EQ(splits.size(), 3u);
  EXPECT_EQ(splits[1].micro_batch, 2);
  EXPECT_EQ(splits[1].accumulate, 2);
  EXPECT_THROW(measure_splits(base_request(), 4, 1, record), std::invalid_argument);
}

}  // namespace
}  // namespace jetchar::experiments
