#include "experiments/inference/inference_runner.h"

#include <gtest/gtest.h>

namespace jetchar::experiments {
namespace {

TEST(InferenceRunnerTest, TimesTheRequestedQueriesAfterWarmUp) {
  const auto& spec = find_model("lenet5");
  auto model = make_model(spec);
  InferenceConfig config;
  config.batch_size = 8;
  config.warmup = 3;
  config.min_queries = 20;
  int queried = 0;
  config.on_query = [&queried] { ++queried; };
  sysfs::Root root;
  auto result = run_inference(*model, spec, config, root);
  ASSERT_EQ(result.status, RunStatus::kOk) << result.error;
  ASSERT_EQ(result.latencies_ns.size(), 20u);
  EXPECT_EQ(queried, 3 + 20);
  ASSERT_TRUE(result.latency);
  EXPECT_LE(result.latency->p50_ns, result.latency->p99_ns);
  EXPECT_LE(result.latency->p99_ns, result.latency->max_ns);
  EXPECT_GT(result.samples_per_s, 0);
  std::int64_t sum = 0;
  for (auto ns : result.latencies_ns) sum += ns;
  EXPECT_GE(result.timed_ns, sum);
  EXPECT_FALSE(model->is_training());
  auto json = to_json(result);
  EXPECT_EQ(json["latency"]["count"], 20);
  EXPECT_EQ(json["settings"]["batch_size"], 8);
}

TEST(InferenceRunnerTest, MinimumDurationKeepsQuerying) {
  const auto& spec = find_model("lenet5");
  auto model = make_model(spec);
  InferenceConfig config;
  config.warmup = 0;
  config.min_queries = 1;
  config.min_duration_s = 0.2;
  sysfs::Root root;
  auto result = run_inference(*model, spec, config, root);
  ASSERT_EQ(result.status, RunStatus::kOk);
  EXPECT_GE(result.timed_ns, 200'000'000);
  EXPECT_GT(result.latencies_ns.size(), 1u);
}

TEST(InferenceRunnerTest, SequenceLengthForTokenModels) {
  const auto& spec = find_model("bert-tiny");
  auto model = make_model(spec);
  InferenceConfig config;
  config.sequence_length = 32;
  config.min_queries = 3;
  config.warmup = 1;
  sysfs::Root root;
  auto result = run_inference(*model, spec, config, root);
  ASSERT_EQ(result.status, RunStatus::kOk) << result.error;
  EXPECT_EQ(result.sequence_length, 32);
  config.sequence_length = 600;
  EXPECT_THROW(run_inference(*model, spec, config, root), std::invalid_argument);
  const auto& lenet = find_model("lenet5");
  auto image_model = make_model(lenet);
  config.sequence_length = 32;
  EXPECT_THROW(run_inference(*image_model, lenet, config, root), std::invalid_argument);
}

TEST(InferenceRunnerTest, OutOfMemoryBatchIsRecorded) {
  const auto& spec = find_model("lenet5");
  auto model = make_model(spec);
  InferenceConfig config;
  // 2^40 images of 28x28 floats: the batch alone would need ~3.4 PB, refused at once.
  config.batch_size = 1LL << 40;
  config.warmup = 0;
  config.min_queries = 1;
  sysfs::Root root;
  auto result = run_inference(*model, spec, config, root);
  EXPECT_EQ(result.status, RunStatus::kOom) << result.error;
  EXPECT_FALSE(result.latency);
}

}  // namespace
}  // namespace jetchar::experiments
