// The simulated board's time model (jetson/simulated/simulated_time_model.h) on the work counted
// from jetchar's own model definitions (model_work.h) follows the seed study's AGX Xavier table
// (issue 47, item 3): between the study's power modes d -> e (CPU 1.2 -> 2.1 GHz) LeNet-5's
// training-minibatch compute falls by about 37 %; between h -> g (EMC 1066 -> 2133 MHz at the MAXN
// CPU and GPU clocks) by about 33 % for LeNet-5, 26 % for ResNet-18 and 28 % for MobileNetV3,
// and their fetch stalls (from the data sets' samples as experiments/fetch_work.h counts them,
// fetched as the study's loader does with no workers) by about 34, 28 and 28 %: the shared DRAM.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "experiments/fetch_work.h"
#include "experiments/models/model_work.h"
#include "experiments/models/registry.h"
#include "jetson/simulated/simulated_time_model.h"

namespace jetchar::experiments {
namespace {

// The study's modes on the AGX Xavier (8 cores in each): CPU, GPU and EMC clocks in GHz.
struct StudyMode {
  const char* name;
  jetson::ModeClocks clocks;
};
const StudyMode kModeD{"d", {8, 1.2, 0.9, 1.6}};
const StudyMode kModeE{"e", {8, 2.1, 0.9, 1.6}};
const StudyMode kModeH{"h", {8, 2.265, 1.377, 1.066}};
const StudyMode kModeG{"g", {8, 2.265, 1.377, 2.133}};

// How far (in percentage points) the modelled cut may lie from the study's: the model is a set of
// assumptions that reproduces the table's trends, not a calibration of its figures.
constexpr double kTolerancePoints = 8;

jetson::ModelWork counted_work(const std::string& name) {
  const ModelSpec& spec = find_model(name);
  const auto model = make_model(spec);
  return count_model_work(*model, spec, spec.default_input);
}

// The share (in %) by which the modelled training-minibatch compute falls from `from` to `to`.
double modelled_cut_percent(const jetson::ModelWork& work, double batch, const StudyMode& from, const StudyMode& to) {
  const auto soc = jetson::soc_throughput("AGX Xavier");
  if (!soc) throw std::runtime_error("no throughput figures for the AGX Xavier");
  const auto minibatch = jetson::training_work(work, batch);
  const double before = jetson::modelled_minibatch_time(minibatch, *soc, from.clocks).total_s;
  const double after = jetson::modelled_minibatch_time(minibatch, *soc, to.clocks).total_s;
  return 100 * (1 - after / before);
}

struct StudyTrend {
  const char* model;  ///< jetchar's model name
  const char* shown;  ///< as the study names it
  double batch;
  StudyMode from, to;
  double study_cut_percent;
};

TEST(StudyTrendsTest, TimeModelFollowsTheSeedStudysAgxXavierTable) {
  const std::vector<StudyTrend> trends = {
      {"lenet5", "LeNet-5", 4, kModeD, kModeE, 37},
      {"lenet5", "LeNet-5", 16, kModeD, kModeE, 37},
      {"lenet5", "LeNet-5", 4, kModeH, kModeG, 33},
      {"lenet5", "LeNet-5", 16, kModeH, kModeG, 33},
      {"resnet18-cifar", "ResNet-18", 16, kModeH, kModeG, 26},
      {"mobilenetv3-large", "MobileNetV3", 16, kModeH, kModeG, 28},
  };
  for (const auto& trend : trends) {
    const auto work = counted_work(trend.model);
    const double cut = modelled_cut_percent(work, trend.batch, trend.from, trend.to);
    const std::string what = fmt::format(
        "{} ({}, batch {}), mode {} -> {}: modelled compute falls by {:.1f} %, the seed study reports {:.0f} % "
        "(tolerance +-{:.0f} points)",
        trend.shown, trend.model, trend.batch, trend.from.name, trend.to.name, cut, trend.study_cut_percent,
        kTolerancePoints);
    std::cout << what << "\n";
    EXPECT_NEAR(cut, trend.study_cut_percent, kTolerancePoints) << what;
  }
}

// A data set's description as its reader gives it: the format, a sample's input and the files'
// size over `samples` samples of `stored_bytes` each.
loaders::DatasetInfo data_set(const char* format, std::vector<std::int64_t> input_shape, std::int64_t samples,
                              std::uint64_t stored_bytes) {
  loaders::DatasetInfo info;
  info.format = format;
  info.layout.input_shape = std::move(input_shape);
  info.bytes = stored_bytes * static_cast<std::uint64_t>(samples);
  return info;
}

struct StallTrend {
  const char* data;  ///< as the study names it
  loaders::DatasetInfo info;
  std::int64_t samples;
  double study_cut_percent;
};

TEST(StudyTrendsTest, FetchStallFollowsTheSeedStudysAgxXavierTable) {
  const auto soc = jetson::soc_throughput("AGX Xavier");
  ASSERT_TRUE(soc);
  // Fashion-MNIST's IDX files (784 bytes an image), CIFAR-10's binary batches (a label byte and
  // 3,072 pixel bytes), GLD-23k's JPEGs (about 100 kB each, resized to 224 x 224).
  const std::vector<StallTrend> trends = {
      {"LeNet-5 / Fashion-MNIST", data_set("idx", {1, 28, 28}, 60'000, 784), 60'000, 34},
      {"ResNet-18 / CIFAR-10", data_set("cifar10-bin", {3, 32, 32}, 50'000, 3'073), 50'000, 28},
      {"MobileNetV3 / GLD-23k", data_set("gld23k", {3, 224, 224}, 23'080, 100'000), 23'080, 28},
  };
  for (const auto& trend : trends) {
    const auto fetch = count_fetch_work(trend.info, trend.samples, 0);
    const double before = jetson::modelled_fetch_time(fetch, 16, *soc, kModeH.clocks, 0, false).stall_s;
    const double after = jetson::modelled_fetch_time(fetch, 16, *soc, kModeG.clocks, 0, false).stall_s;
    const double cut = 100 * (1 - after / before);
    const std::string what = fmt::format(
        "{} (batch 16, no workers), mode h -> g: modelled fetch stall falls by {:.1f} % ({:.2f} -> {:.2f} ms), the "
        "seed study reports {:.0f} % (tolerance +-{:.0f} points)",
        trend.data, cut, 1e3 * before, 1e3 * after, trend.study_cut_percent, kTolerancePoints);
    std::cout << what << "\n";
    EXPECT_NEAR(cut, trend.study_cut_percent, kTolerancePoints) << what;
  }
}

}  // namespace
}  // namespace jetchar::experiments
