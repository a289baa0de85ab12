#include "experiments/inference/inference_runner.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "sysfs/monotonic_clock.h"

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

// Query inputs of 3 batches of 2 samples, 8 tokens each, with ids from `first_id` on.
QueryInputs token_inputs(std::int64_t first_id) {
  QueryInputs inputs;
  inputs.name = "dev-v1.1.json";
  inputs.samples = 6;
  for (std::int64_t q = 0; q < 3; ++q) {
    loaders::Batch batch;
    batch.inputs = torch::arange(first_id + q * 16, first_id + q * 16 + 16, torch::kInt64).reshape({2, 8});
    batch.targets = torch::zeros({2, 2}, torch::kInt64);
    batch.attention_mask = torch::ones({2, 8}, torch::kInt64);
    batch.token_type_ids = torch::zeros({2, 8}, torch::kInt64);
    inputs.batches.push_back(batch);
  }
  return inputs;
}

TEST(InferenceRunnerTest, QueriesCycleThroughADataSetsBatchesAndTheTimedSpanIsKept) {
  const auto& spec = find_model("bert-tiny-qa");
  auto model = make_model(spec);
  const auto inputs = token_inputs(1000);
  InferenceConfig config;
  config.batch_size = 2;
  config.warmup = 1;
  config.min_queries = 5;
  config.inputs = &inputs;
  const std::int64_t before = sysfs::monotonic_ns();
  const auto result = run_inference(*model, spec, config, sysfs::Root());
  const std::int64_t after = sysfs::monotonic_ns();
  ASSERT_EQ(result.status, RunStatus::kOk) << result.error;
  EXPECT_EQ(result.inputs, "dev-v1.1.json");
  EXPECT_EQ(result.input_samples, 6);
  EXPECT_EQ(result.sequence_length, 8);  // the samples' length
  EXPECT_EQ(result.latencies_ns.size(), 5u);
  EXPECT_LE(before, result.timed_begin_ns);
  EXPECT_LT(result.timed_begin_ns, result.timed_end_ns);
  EXPECT_LE(result.timed_end_ns, after);
  EXPECT_GE(result.timed_end_ns - result.timed_begin_ns, result.timed_ns);
  const auto json = to_json(result);
  EXPECT_EQ(json["settings"]["inputs"], "dev-v1.1.json");
  EXPECT_EQ(json["settings"]["input_samples"], 6);
  EXPECT_EQ(to_json(run_inference(*model, spec, InferenceConfig{}, sysfs::Root()))["settings"]["inputs"], "synthetic");
}

TEST(InferenceRunnerTest, ADataSetMustMatchTheBatchSequenceLengthAndVocabulary) {
  const auto& spec = find_model("bert-tiny-qa");
  auto model = make_model(spec);
  auto inputs = token_inputs(1000);
  InferenceConfig config;
  config.batch_size = 2;
  config.warmup = 0;
  config.min_queries = 1;
  config.inputs = &inputs;
  auto message = [&] {
    try {
      (void)run_inference(*model, spec, config, sysfs::Root());
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  config.batch_size = 4;
  EXPECT_EQ(message(), "dev-v1.1.json: query batches of 2 samples for batch size 4");
  config.batch_size = 2;
  config.sequence_length = 16;
  EXPECT_EQ(message(), "sequence length 16 differs from the 8 tokens of dev-v1.1.json's samples");
  config.sequence_length.reset();
  inputs = token_inputs(spec.vocab_size - 20);  // the last batch's ids run past the vocabulary
  EXPECT_EQ(message(), fmt::format("dev-v1.1.json: token id {} is outside bert-tiny-qa's vocabulary of {} ids; "
                                   "tokenize with the model's vocab.txt (?vocab=FILE, or --pretrained with the "
                                   "checkpoint's)",
                                   spec.vocab_size + 27, spec.vocab_size));
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
