#include "experiments/training/training_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "experiments/models/lenet5.h"
#include "experiments/models/registry.h"
#include "tests/experiments/batch_sources.h"

namespace jetchar::experiments {
namespace {

using testing::VectorBatchSource;
using namespace std::chrono_literals;

std::vector<loaders::Batch> lenet_batches(int count, int batch_size = 4) {
  std::vector<loaders::Batch> batches;
  for (int i = 0; i < count; ++i) {
    batches.push_back(synthetic_batch(find_model("lenet5"), batch_size, 10, {1, 28, 28}, i));
  }
  return batches;
}

std::int64_t monotonic_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// When a known delay ran, on the clock the runner's minibatch records use.
struct Interval {
  std::int64_t begin_ns = 0;
  std::int64_t end_ns = 0;
};

Interval timed_sleep(std::chrono::milliseconds delay) {
  Interval interval{monotonic_now_ns(), 0};
  std::this_thread::sleep_for(delay);
  interval.end_ns = monotonic_now_ns();
  return interval;
}

// A network whose compute takes a known time: a linear layer plus a sleep in forward, each sleep's
// interval kept so the test can place it inside the record's compute phase.
class SleepyNet : public Network {
 public:
  explicit SleepyNet(std::chrono::milliseconds delay) : delay_(delay) {
    linear_ = register_module("linear", torch::nn::Linear(784, 10));
  }
  Task task() const override { return Task::kImageClassification; }
  torch::Tensor forward_batch(const loaders::Batch& batch) override {
    sleeps.push_back(timed_sleep(delay_));
    return linear_(batch.inputs.flatten(1));
  }

  std::vector<Interval> sleeps;

 private:
  std::chrono::milliseconds delay_;
  torch::nn::Linear linear_{nullptr};
};

// A source whose every batch takes a known time to fetch, each fetch's interval kept.
class SleepySource : public VectorBatchSource {
 public:
  SleepySource(std::vector<loaders::Batch> batches, std::chrono::milliseconds delay)
      : VectorBatchSource(std::move(batches)), delay_(delay) {}
  std::optional<loaders::Batch> next() override {
    auto batch = VectorBatchSource::next();
    if (batch) sleeps.push_back(timed_sleep(delay_));
    return batch;
  }

  std::vector<Interval> sleeps;

 private:
  std::chrono::milliseconds delay_;
};

// Asks for ~4 PB on the second minibatch: the CPU allocator refuses at once, without touching memory.
class GreedyNet : public Network {
 public:
  GreedyNet() { linear_ = register_module("linear", torch::nn::Linear(784, 10)); }
  Task task() const override { return Task::kImageClassification; }
  torch::Tensor forward_batch(const loaders::Batch& batch) override {
    if (calls_++ == 1) {
      auto huge = torch::empty({1'000'000'000'000'000LL}, torch::kFloat);
      return huge.sum() * linear_(batch.inputs.flatten(1));
    }
    return linear_(batch.inputs.flatten(1));
  }

 private:
  int calls_ = 0;
  torch::nn::Linear linear_{nullptr};
};

// The phases are checked by where the known delays fall, not by how long they took: a loaded
// machine stretches both, but a fetch must never be counted as compute or the reverse.
TEST(TrainingRunnerTest, StallAndComputeFollowKnownDelays) {
  constexpr auto kLoaderDelay = 30ms;
  constexpr auto kComputeDelay = 15ms;
  SleepySource source(lenet_batches(8), kLoaderDelay);
  SleepyNet model(kComputeDelay);
  TrainingConfig config;
  config.keep_minibatch_records = true;
  sysfs::Root root;
  auto result = train(model, source, config, root, "sleepy");
  ASSERT_EQ(result.status, RunStatus::kOk) << result.error;
  ASSERT_EQ(result.minibatches.size(), 8u);
  ASSERT_EQ(source.sleeps.size(), 8u);
  ASSERT_EQ(model.sleeps.size(), 8u);
  for (std::size_t i = 0; i < result.minibatches.size(); ++i) {
    const auto& record = result.minibatches[i];
    EXPECT_GE(record.stall_ns, 30'000'000) << "batch " << record.index;
    EXPECT_GE(record.compute_ns, 15'000'000) << "batch " << record.index;
    const std::int64_t compute_begin_ns = record.start_ns + record.stall_ns;
    const std::int64_t compute_end_ns = compute_begin_ns + record.compute_ns;
    EXPECT_GE(source.sleeps[i].begin_ns, record.start_ns) << "batch " << i;
    EXPECT_LE(source.sleeps[i].end_ns, compute_begin_ns) << "batch " << i << ": fetch counted as compute";
    EXPECT_GE(model.sleeps[i].begin_ns, compute_begin_ns) << "batch " << i << ": compute counted as stall";
    EXPECT_LE(model.sleeps[i].end_ns, compute_end_ns) << "batch " << i;
    if (i > 0) {
      const auto& previous = result.minibatches[i - 1];
      EXPECT_GE(record.start_ns, previous.start_ns + previous.stall_ns + previous.compute_ns) << "batch " << i;
    }
  }
  const auto& epoch = result.epochs.at(0);
  EXPECT_GE(epoch.e2e_ns, epoch.stall_ns + epoch.compute_ns);
  EXPECT_EQ(epoch.batches, 8);
  EXPECT_EQ(epoch.samples, 32);
}

TEST(TrainingRunnerTest, EpochZeroIsReportedApartFromLaterEpochs) {
  VectorBatchSource source(lenet_batches(3));
  LeNet5 model;
  TrainingConfig config;
  config.epochs = 3;
  sysfs::Root root;
  auto result = train(*model, source, config, root, "lenet5");
  ASSERT_EQ(result.status, RunStatus::kOk) << result.error;
  EXPECT_EQ(source.epochs_started_, 3);
  EXPECT_EQ(source.last_epoch_, 2);
  auto summary = result.summary();
  ASSERT_TRUE(summary.first);
  EXPECT_EQ(summary.first->epoch, 0);
  ASSERT_TRUE(summary.later_e2e_ns_median);
  EXPECT_DOUBLE_EQ(*summary.later_e2e_ns_median, (result.epochs[1].e2e_ns + result.epochs[2].e2e_ns) / 2.0);
  auto json = to_json(result);
  EXPECT_EQ(json["status"], "OK");
  EXPECT_EQ(json["epoch0"]["epoch"], 0);
  EXPECT_EQ(json["settings"]["optimizer"], "sgd");
  EXPECT_DOUBLE_EQ(json["settings"]["learning_rate"].get<double>(), 0.01);
  EXPECT_EQ(json["settings"]["timing"], "synchronized per minibatch");
  EXPECT_EQ(json["epochs"].size(), 3u);
}

// Minibatch records carry when they ran (on the power trace's clock, so the executor can integrate
// each one's energy) and their loss, read once at the end of the epoch.
TEST(TrainingRunnerTest, MinibatchRecordsCarryTheirTimeSpanAndLoss) {
  VectorBatchSource source(lenet_batches(5), 2ms);
  LeNet5 model;
  TrainingConfig config;
  config.epochs = 2;
  config.keep_minibatch_records = true;
  sysfs::Root root;
  const auto before = monotonic_now_ns();
  auto result = train(*model, source, config, root, "lenet5");
  const auto after = monotonic_now_ns();
  ASSERT_EQ(result.status, RunStatus::kOk) << result.error;
  ASSERT_EQ(result.minibatches.size(), 10u);
  std::int64_t previous_end = before;
  for (std::size_t e = 0; e < 2; ++e) {
    double weighted = 0;
    std::int64_t samples = 0;
    for (std::size_t i = 0; i < 5; ++i) {
      const auto& m = result.minibatches[e * 5 + i];
      EXPECT_EQ(m.epoch, static_cast<std::int64_t>(e));
      EXPECT_EQ(m.index, static_cast<std::int64_t>(i));
      // Back to back, in order: a minibatch starts after the previous one's compute ended.
      EXPECT_GE(m.start_ns, previous_end) << "epoch " << e << " minibatch " << i;
      EXPECT_GE(m.stall_ns, 2'000'000);
      previous_end = m.start_ns + m.stall_ns + m.compute_ns;
      ASSERT_TRUE(m.loss.has_value()) << "epoch " << e << " minibatch " << i;
      weighted += *m.loss * static_cast<double>(m.samples);
      samples += m.samples;
    }
    // The epoch's mean loss is the sample-weighted mean of its minibatches' losses.
    ASSERT_TRUE(result.epochs[e].mean_loss.has_value());
    EXPECT_NEAR(weighted / static_cast<double>(samples), *result.epochs[e].mean_loss, 1e-5);
  }
  EXPECT_LE(previous_end, after);
  EXPECT_TRUE(to_json(result)["minibatches"][9]["loss"].is_number());
}

TEST(TrainingRunnerTest, TrainingLowersTheLossOnAFixedBatch) {
  auto batches = lenet_batches(1, 16);
  VectorBatchSource source(std::vector<loaders::Batch>(10, batches[0]));
  LeNet5 model;
  TrainingConfig config;
  config.epochs = 3;
  sysfs::Root root;
  auto result = train(*model, source, config, root);
  ASSERT_EQ(result.status, RunStatus::kOk) << result.error;
  EXPECT_LT(*result.epochs[2].mean_loss, *result.epochs[0].mean_loss);
  EXPECT_TRUE(result.epochs[2].train_accuracy.has_value());
}

TEST(TrainingRunnerTest, AccumulationStepsEveryMBatchesAndAtTheEnd) {
  VectorBatchSource source(lenet_batches(7));
  LeNet5 model;
  TrainingConfig config;
  config.accumulate = 3;
  sysfs::Root root;
  auto result = train(*model, source, config, root);
  ASSERT_EQ(result.status, RunStatus::kOk) << result.error;
  EXPECT_EQ(result.epochs[0].optimizer_steps, 3);  // after batches 3, 6 and the last one
  EXPECT_EQ(to_json(result)["settings"]["total_batch"], 12);
}

TEST(TrainingRunnerTest, MaxBatchesBoundsEachEpoch) {
  VectorBatchSource source(lenet_batches(6));
  LeNet5 model;
  TrainingConfig config;
  config.epochs = 2;
  config.max_batches = 2;
  sysfs::Root root;
  auto result = train(*model, source, config, root);
  ASSERT_EQ(result.status, RunStatus::kOk);
  EXPECT_EQ(result.epochs[0].batches, 2);
  EXPECT_EQ(result.epochs[1].batches, 2);
}

TEST(TrainingRunnerTest, MaxStepsEndsTheRunInsideAnEpochAndBoundsTheSchedule) {
  // 7 minibatches an epoch, a step after every 2 and after the last: 4 steps an epoch; 10 steps are
  // two epochs and 2 steps (4 minibatches) of a third.
  VectorBatchSource source(lenet_batches(7));
  LeNet5 model;
  TrainingConfig config;
  config.epochs = 5;
  config.accumulate = 2;
  config.max_steps = 10;
  config.warmup_proportion = 0.1;
  sysfs::Root root;
  auto result = train(*model, source, config, root);
  ASSERT_EQ(result.status, RunStatus::kOk) << result.error;
  ASSERT_EQ(result.epochs.size(), 3u);
  EXPECT_TRUE(result.reached_max_steps);
  EXPECT_FALSE(result.stopped_early);
  EXPECT_EQ(result.epochs[1].optimizer_steps, 4);
  EXPECT_TRUE(result.epochs[1].completed);
  EXPECT_EQ(result.epochs[2].optimizer_steps, 2);
  EXPECT_EQ(result.epochs[2].batches, 4);
  EXPECT_FALSE(result.epochs[2].completed);  // cut where the steps ended
  EXPECT_EQ(result.schedule_steps, 10);
  EXPECT_EQ(result.warmup_steps, 1);
  // Steps that end with an epoch leave it whole.
  VectorBatchSource again(lenet_batches(7));
  config.max_steps = 8;
  result = train(*model, again, config, root);
  ASSERT_EQ(result.epochs.size(), 2u);
  EXPECT_TRUE(result.epochs[1].completed);
  config.max_steps = 0;
  EXPECT_THROW(train(*model, again, config, root), std::invalid_argument);
}

TEST(TrainingRunnerTest, EachStepsLossIsItsMinibatchesLossWeightedBySamples) {
  // Minibatches of 4 and 2 samples in turn, a step after every 2 and after the epoch's last (7th).
  std::vector<loaders::Batch> batches;
  for (int i = 0; i < 7; ++i)
    batches.push_back(synthetic_batch(find_model("lenet5"), i % 2 == 0 ? 4 : 2, 10, {1, 28, 28}, i));
  VectorBatchSource source(batches);
  LeNet5 model;
  TrainingConfig config;
  config.epochs = 2;
  config.accumulate = 2;
  config.keep_minibatch_records = true;
  config.keep_step_losses = true;
  sysfs::Root root;
  const auto result = train(*model, source, config, root);
  ASSERT_EQ(result.status, RunStatus::kOk) << result.error;
  ASSERT_EQ(result.minibatches.size(), 14u);
  for (std::size_t e = 0; e < 2; ++e) {
    const auto& epoch = result.epochs[e];
    ASSERT_EQ(epoch.step_losses.size(), 4u);
    const auto loss = [&](std::size_t i) { return *result.minibatches[7 * e + i].loss; };
    for (std::size_t step = 0; step < 3; ++step) {
      EXPECT_NEAR(epoch.step_losses[step], (4 * loss(2 * step) + 2 * loss(2 * step + 1)) / 6, 1e-5) << step;
    }
    EXPECT_NEAR(epoch.step_losses[3], loss(6), 1e-6);
  }
  // Kept only when asked.
  VectorBatchSource again(batches);
  config.keep_step_losses = false;
  EXPECT_TRUE(train(*model, again, config, root).epochs[0].step_losses.empty());
}

TEST(TrainingRunnerTest, AsyncModeIsMarked) {
  VectorBatchSource source(lenet_batches(2));
  LeNet5 model;
  TrainingConfig config;
  config.sync_per_batch = false;
  sysfs::Root root;
  auto json = to_json(train(*model, source, config, root));
  EXPECT_EQ(json["settings"]["synchronized"], false);
  EXPECT_EQ(json["settings"]["timing"], "async (no per-minibatch sync)");
}

TEST(TrainingRunnerTest, OutOfMemoryIsRecordedAndSurvived) {
  VectorBatchSource source(lenet_batches(4));
  GreedyNet greedy;
  TrainingConfig config;
  config.epochs = 2;
  sysfs::Root root;
  auto result = train(greedy, source, config, root, "greedy");
  EXPECT_EQ(result.status, RunStatus::kOom);
  EXPECT_NE(result.error.find("allocate"), std::string::npos) << result.error;
  EXPECT_EQ(result.error.find('\n'), std::string::npos);
  ASSERT_EQ(result.epochs.size(), 1u);
  EXPECT_FALSE(result.epochs[0].completed);
  EXPECT_EQ(result.epochs[0].batches, 1);
  for (const auto& parameter : greedy.parameters()) EXPECT_FALSE(parameter.grad().defined());
  EXPECT_EQ(to_json(result)["status"], "OOM");

  // The process goes on: the next run in it works.
  LeNet5 model;
  auto next = train(*model, source, TrainingConfig{}, root, "lenet5");
  EXPECT_EQ(next.status, RunStatus::kOk) << next.error;
}

TEST(TrainingRunnerTest, OtherErrorsAreFailures) {
  auto batches = lenet_batches(2);
  batches[1].targets = torch::full({4}, 99, torch::kLong);  // class 99 of 10
  VectorBatchSource source(batches);
  LeNet5 model;
  sysfs::Root root;
  auto result = train(*model, source, TrainingConfig{}, root);
  EXPECT_EQ(result.status, RunStatus::kFailed);
  EXPECT_FALSE(result.error.empty());
}

TEST(TrainingRunnerTest, Bf16AutocastTrainsOnTheCpu) {
  VectorBatchSource source(lenet_batches(2));
  LeNet5 model;
  TrainingConfig config;
  config.precision = Precision::kBf16;
  sysfs::Root root;
  auto result = train(*model, source, config, root);
  // A oneDNN without bfloat16 kernels for these layers (Debian's arm64 LibTorch, seen under
  // qemu-aarch64) refuses them: the run is a failure with oneDNN's message, as a user sees it.
  if (result.status == RunStatus::kFailed &&
      result.error.find("could not create a primitive descriptor") != std::string::npos) {
    GTEST_SKIP() << "this LibTorch's oneDNN has no bfloat16 CPU kernels: " << result.error;
  }
  ASSERT_EQ(result.status, RunStatus::kOk) << result.error;
  EXPECT_TRUE(std::isfinite(*result.epochs[0].mean_loss));
  EXPECT_EQ(result.precision, "bf16 (autocast bfloat16)");
  // Parameters stay fp32: autocast casts per op.
  EXPECT_EQ(model->parameters()[0].scalar_type(), torch::kFloat);
}

TEST(TrainingRunnerTest, InvalidSettingsThrowBeforeRunning) {
  VectorBatchSource source(lenet_batches(1));
  LeNet5 model;
  sysfs::Root root;
  TrainingConfig config;
  config.precision = Precision::kAmpFp16;  // needs CUDA
  EXPECT_THROW(train(*model, source, config, root), std::invalid_argument);
  config = {};
  config.accumulate = 0;
  EXPECT_THROW(train(*model, source, config, root), std::invalid_argument);
  config = {};
  config.epochs = 0;
  EXPECT_THROW(train(*model, source, config, root), std::invalid_argument);
  EXPECT_EQ(source.epochs_started_, 0);
}

TEST(TrainingRunnerTest, BertUsesAdamWAndMemoryIsMeasured) {
  const auto& spec = find_model("bert-tiny-ner");
  std::vector<loaders::Batch> batches{synthetic_batch(spec, 2, 9, {16}, 1)};
  VectorBatchSource source(batches);
  auto model = make_model(spec);
  sysfs::Root root;
  auto result = train(*model, source, TrainingConfig{}, root, spec.name);
  ASSERT_EQ(result.status, RunStatus::kOk) << result.error;
  EXPECT_EQ(result.optimizer, "adamw");
  ASSERT_TRUE(result.memory.peak_rss_kib);
  EXPECT_GT(*result.memory.peak_rss_kib, 1000u);
  ASSERT_TRUE(result.memory.min_mem_available_kib);
  EXPECT_LE(*result.memory.min_mem_available_kib, *result.memory.mem_total_kib);
  EXPECT_FALSE(result.memory.cuda_peak_allocated_bytes);  // CPU run: absent, not 0
}

TEST(TrainingRunnerTest, EvaluationAfterEachEpoch) {
  VectorBatchSource source(lenet_batches(2));
  VectorBatchSource eval(lenet_batches(2));
  LeNet5 model;
  TrainingConfig config;
  config.eval_source = &eval;
  config.epochs = 2;
  sysfs::Root root;
  auto result = train(*model, source, config, root);
  ASSERT_EQ(result.status, RunStatus::kOk);
  ASSERT_TRUE(result.epochs[1].eval_accuracy);
  EXPECT_GE(*result.epochs[1].eval_accuracy, 0.0);
  EXPECT_LE(*result.epochs[1].eval_accuracy, 1.0);
  EXPECT_TRUE(model->is_training());
}

}  // namespace
}  // namespace jetchar::experiments
