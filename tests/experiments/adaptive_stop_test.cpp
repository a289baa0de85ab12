// The adaptive stopping rule on synthetic minibatch series with known behaviour: a constant
// series stops as soon as it may, noise stops once the interval is narrow enough, a drift never
// stops, and autocorrelated noise needs longer than independent noise of the same spread.
#include "experiments/adaptive_stop.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <iostream>
#include <random>
#include <stdexcept>

namespace jetchar::experiments {
namespace {

AdaptiveStopOptions options(double threshold = 0.02, std::size_t warmup = 10, std::size_t minimum = 30) {
  AdaptiveStopOptions o;
  o.warmup_minibatches = warmup;
  o.relative_half_width = threshold;
  o.min_minibatches = minimum;
  return o;
}

// Feeds `series(i)` as time (and power when `power` is set) until the rule stops or `limit`
// minibatches have gone by; returns the minibatches it took, or nullopt when it never stopped.
std::optional<std::size_t> stop_after(AdaptiveStop& rule, const std::function<double(std::size_t)>& time,
                                      const std::function<double(std::size_t)>& power = {}, std::size_t limit = 5000) {
  for (std::size_t i = 0; i < limit; ++i) {
    rule.add_time(time(i));
    if (power) rule.add_power(power(i));
    if (rule.settled()) return rule.minibatches();
  }
  return std::nullopt;
}

TEST(AdaptiveStopTest, ConstantSeriesStopsAtWarmupPlusTheMinimum) {
  AdaptiveStop rule(options(), true);
  const auto stopped = stop_after(
      rule, [](std::size_t) { return 0.012; }, [](std::size_t) { return 7.5; });
  ASSERT_TRUE(stopped);
  EXPECT_EQ(*stopped, 10u + 30u);
  EXPECT_NEAR(rule.time_interval()->half_width, 0.0, 1e-12);
  EXPECT_DOUBLE_EQ(rule.power_interval()->mean, 7.5);
  EXPECT_EQ(rule.basis(), "time+power");
}

TEST(AdaptiveStopTest, WarmupValuesAreIgnored) {
  // A slow first 10 minibatches (caches, allocator) must not count against settling.
  AdaptiveStop rule(options(), false);
  const auto stopped = stop_after(rule, [](std::size_t i) { return i < 10 ? 0.5 : 0.01; });
  ASSERT_TRUE(stopped);
  EXPECT_EQ(*stopped, 40u);
  EXPECT_DOUBLE_EQ(rule.time_interval()->mean, 0.01);
}

TEST(AdaptiveStopTest, NoisySeriesStopsOnceTheIntervalIsNarrowAndEstimatesTheMean) {
  std::mt19937 random(42);
  std::normal_distribution<double> time_noise(0.020, 0.020 * 0.05);  // 5 % spread
  std::normal_distribution<double> power_noise(8.0, 8.0 * 0.03);
  AdaptiveStop rule(options(), true);
  const auto stopped = stop_after(
      rule, [&](std::size_t) { return time_noise(random); }, [&](std::size_t) { return power_noise(random); });
  ASSERT_TRUE(stopped);
  // Needs more than the minimum (5 % spread, 2 % half-width) but far fewer than a fixed long run.
  EXPECT_GT(*stopped, 40u);
  EXPECT_LT(*stopped, 400u);
  EXPECT_LT(rule.time_interval()->relative_half_width(), 0.02);
  EXPECT_NEAR(rule.time_interval()->mean, 0.020, 0.020 * 0.02);
  EXPECT_NEAR(rule.power_interval()->mean, 8.0, 8.0 * 0.02);
}

TEST(AdaptiveStopTest, LinearDriftNeverStops) {
  // 0.2 % slower per minibatch (e.g. a board heating into throttling): the mean never settles.
  AdaptiveStop rule(options(), true);
  const auto stopped = stop_after(
      rule, [](std::size_t i) { return 0.010 * (1 + 0.002 * static_cast<double>(i)); }, [](std::size_t) { return 6.0; },
      3000);
  EXPECT_FALSE(stopped) << "stopped after " << *stopped;
}

TEST(AdaptiveStopTest, DriftUnderNoiseDoesNotStop) {
  // Power creeping up by 0.3 % per minibatch under 2 % noise: the change across any judged
  // window (9 % over 30 minibatches, more over longer ones) is a significant trend well above
  // the threshold, so the run goes on however narrow the interval of the mean becomes.
  std::mt19937 random(3);
  std::normal_distribution<double> noise(0.0, 0.02);
  AdaptiveStop rule(options(), true);
  const auto stopped = stop_after(
      rule, [](std::size_t) { return 0.01; },
      [&](std::size_t i) { return 5.0 * (1 + 0.003 * static_cast<double>(i) + noise(random)); }, 1000);
  EXPECT_FALSE(stopped) << "stopped after " << *stopped;
}

TEST(AdaptiveStopTest, AlternatingPowerSettlesOnlyWithEvenBatches) {
  // Alternating 3 W / 9 W (a minibatch-periodic load): batch means of odd size alternate 5.4 W /
  // 6.6 W and are not settled; of even size they are exactly 6 W.
  AdaptiveStop rule(options(), true);
  const auto stopped = stop_after(
      rule, [](std::size_t) { return 0.01; }, [](std::size_t i) { return i % 2 == 0 ? 3.0 : 9.0; }, 200);
  ASSERT_TRUE(stopped);
  EXPECT_EQ(*stopped, 46u);  // 36 measured: b = 6
  EXPECT_EQ(rule.power_interval()->batch_size, 6u);
  EXPECT_DOUBLE_EQ(rule.power_interval()->mean, 6.0);
}

TEST(AdaptiveStopTest, PowerThatHasNotSettledKeepsTheRunGoingThoughTimeHas) {
  AdaptiveStop noisy(options(), true);
  std::mt19937 random(5);
  std::uniform_real_distribution<double> wild(1.0, 11.0);
  EXPECT_FALSE(stop_after(
      noisy, [](std::size_t) { return 0.01; }, [&](std::size_t) { return wild(random); }, 200));
  EXPECT_TRUE(noisy.time_interval());
  EXPECT_LT(noisy.time_interval()->relative_half_width(), 0.02);
  EXPECT_GT(noisy.power_interval()->relative_half_width(), 0.02);
}

TEST(AdaptiveStopTest, TimeOnlyWhenTheBoardHasNoPowerChannel) {
  AdaptiveStop rule(options(), false);
  EXPECT_EQ(rule.basis(), "time");
  const auto stopped = stop_after(rule, [](std::size_t) { return 0.01; });
  ASSERT_TRUE(stopped);
  EXPECT_EQ(*stopped, 40u);
  EXPECT_FALSE(rule.power_interval());
}

TEST(AdaptiveStopTest, PowerLaggingBehindTimeIsJudgedWhenItArrives) {
  AdaptiveStop rule(options(), true);
  for (int i = 0; i < 100; ++i) rule.add_time(0.01);
  EXPECT_FALSE(rule.settled());  // no power yet
  for (int i = 0; i < 39; ++i) rule.add_power(4.0);
  EXPECT_FALSE(rule.settled());  // 29 measured power values < 30
  rule.add_power(4.0);
  EXPECT_TRUE(rule.settled());
}

TEST(AdaptiveStopTest, AutocorrelatedNoiseNeedsLongerThanIndependentNoise) {
  // AR(1) with phi = 0.9 and the same marginal spread as the independent series: a t interval
  // over raw values would stop both at about the same point; batch means see the correlation.
  auto minibatches_for = [](double phi) {
    std::mt19937 random(11);
    std::normal_distribution<double> innovation(0.0, 1.0);
    const double marginal_sd = 0.05;
    const double innovation_sd = marginal_sd * std::sqrt(1 - phi * phi);
    double state = 0;
    AdaptiveStop rule(options(), false);
    return stop_after(rule, [&](std::size_t) {
      state = phi * state + innovation_sd * innovation(random);
      return 1.0 + state;
    });
  };
  const auto independent = minibatches_for(0.0);
  const auto correlated = minibatches_for(0.9);
  ASSERT_TRUE(independent);
  ASSERT_TRUE(correlated);
  EXPECT_GT(*correlated, 2 * *independent) << "independent " << *independent << ", AR(1) " << *correlated;
}

TEST(AdaptiveStopTest, BatchMeansIntervalOfAKnownSeries) {
  // 25 values: b = 5, k = 5 batch means 1..5; sd = sqrt(2.5); t(0.975, 4) = 2.776445.
  std::vector<double> values;
  for (int j = 1; j <= 5; ++j) {
    for (int i = 0; i < 5; ++i) values.push_back(j);
  }
  const auto interval = batch_means_interval(values);
  ASSERT_TRUE(interval);
  EXPECT_EQ(interval->batches, 5u);
  EXPECT_EQ(interval->batch_size, 5u);
  EXPECT_DOUBLE_EQ(interval->mean, 3.0);
  EXPECT_NEAR(interval->half_width, 2.776445 * std::sqrt(2.5) / std::sqrt(5.0), 1e-5);
  EXPECT_NEAR(interval->trend, 4.0, 1e-12);
  EXPECT_EQ(interval->trend_half_width, 0.0);  // the means lie on the line
  EXPECT_TRUE(interval->drifting(0.02));
  EXPECT_FALSE(batch_means_interval(std::vector<double>{1, 2, 3, 4}));
}

TEST(AdaptiveStopTest, OptionsFromTheSpecUseTheDocumentedDefaults) {
  proto::AdaptiveSpec spec;
  spec.set_enabled(true);
  const auto defaults = adaptive_options(spec);
  EXPECT_EQ(defaults.warmup_minibatches, 10u);
  EXPECT_EQ(defaults.min_minibatches, 30u);
  EXPECT_DOUBLE_EQ(defaults.relative_half_width, 0.02);
  spec.set_relative_half_width(1.5);
  try {
    (void)adaptive_options(spec);
    FAIL() << "a threshold of 1.5 was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("adaptive.relative_half_width 1.5 is out of range"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace jetchar::experiments
