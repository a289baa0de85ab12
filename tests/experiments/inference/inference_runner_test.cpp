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

// A paced query ends when the board's would: a host that overran it gives the board's latency, and
// its delay is counted apart and left out of the timed span's duration.
TEST(InferenceRunnerTest, APacedQueryTheHostOverranKeepsTheBoardsLatency) {
  const auto& spec = find_model("lenet5");
  auto model = make_model(spec);
  InferenceConfig config;
  config.batch_size = 4;
  config.warmup = 1;
  config.min_queries = 10;
  // The board takes 1 us a query; this host takes longer (its forward pass alone).
  config.pace_query = [](auto query_start, std::int64_t) { return query_start + std::chrono::microseconds(1); };
  sysfs::Root root;
  const auto result = run_inference(*model, spec, config, root);
  ASSERT_EQ(result.status, RunStatus::kOk) << result.error;
  ASSERT_EQ(result.latencies_ns.size(), 10u);
  // 1 us and the loop's own bookkeeping before the query begins, far below a forward pass.
  for (const auto ns : result.latencies_ns) {
    EXPECT_GE(ns, 1000);
    EXPECT_LT(ns, 50'000);
  }
  EXPECT_GT(result.host_delay_ns, 0);
  EXPECT_LT(result.timed_ns, result.timed_end_ns - result.timed_begin_ns)
      << "the host's delay is in the clock readings, not in the duration";
  EXPECT_GE(result.timed_ns, 10 * 1000);
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

TEST(InferenceRunnerTest, SingleStreamQueriesOneSampleAndAnswersWithItsP90) {
  const auto& spec = find_model("lenet5");
  auto model = make_model(spec);
  InferenceConfig config;
  config.scenario = InferenceScenario::kSingleStream;
  config.batch_size = 2;
  config.warmup = 1;
  config.min_queries = 10;
  sysfs::Root root;
  try {
    run_inference(*model, spec, config, root);
    FAIL() << "batch 2 ran single-stream";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "batch size 2 is not valid for the single-stream scenario (queries of one sample); valid: 1");
  }
  config.batch_size = 1;
  const auto result = run_inference(*model, spec, config, root);
  ASSERT_EQ(result.status, RunStatus::kOk) << result.error;
  ASSERT_TRUE(result.latency);
  const auto json = to_json(result);
  EXPECT_EQ(json["scenario"], "single-stream");
  EXPECT_EQ(json["headline"]["figure"], "p90_ms");
  EXPECT_DOUBLE_EQ(json["headline"]["value"].get<double>(), static_cast<double>(result.latency->p90_ns) / 1e6);
  EXPECT_TRUE(json["server"].is_null());
}

// The server scenario's batches go through the runner's query (paced as every query is), up to the
// batch size, and the result's latencies are the highest passing trial's.
TEST(InferenceRunnerTest, TheServerScenarioSearchesARateThroughTheRunnersQueries) {
  const auto& spec = find_model("lenet5");
  auto model = make_model(spec);
  InferenceConfig config;
  config.scenario = InferenceScenario::kServer;
  config.batch_size = 2;
  config.warmup = 2;
  config.min_queries = 50;
  config.latency_bound_ms = 50;
  config.time_dilation = [] { return 2.0; };  // as a dilated board's pacer would say
  std::int64_t paced = 0, largest = 0, smallest = 1 << 30;
  config.pace_query = [&](auto, std::int64_t samples) {
    ++paced;
    largest = std::max(largest, samples);
    smallest = std::min(smallest, samples);
    return std::chrono::steady_clock::now();
  };
  sysfs::Root root;
  const auto result = run_inference(*model, spec, config, root);
  ASSERT_EQ(result.status, RunStatus::kOk) << result.error;
  ASSERT_TRUE(result.server);
  const auto& search = *result.server;
  EXPECT_EQ(search.settings.latency_bound_ns, 100'000'000) << "the bound stretches with the dilation";
  EXPECT_EQ(search.settings.max_batch, 2);
  EXPECT_EQ(search.settings.min_queries, 50);
  EXPECT_GT(search.capacity_qps, 0);
  ASSERT_TRUE(search.best) << to_json(search).dump(1);
  ASSERT_TRUE(result.latency);
  EXPECT_EQ(result.latency->count, search.trials[*search.best].queries);
  EXPECT_EQ(result.latency->p99_ns, *search.max_qps_p99_ns());
  EXPECT_GT(result.samples_per_s, 0);
  EXPECT_LT(result.timed_begin_ns, result.timed_end_ns);
  std::int64_t batches = 0;
  for (const auto& t : search.trials) batches += t.batches;
  EXPECT_EQ(paced, 2 + 5 + batches) << "warm-up, the capacity's queries and every batch of every trial";
  EXPECT_EQ(largest, 2);
  EXPECT_EQ(smallest, 1);
  const auto json = to_json(result);
  EXPECT_EQ(json["scenario"], "server");
  EXPECT_EQ(json["headline"]["figure"], "max_qps");
  EXPECT_EQ(json["headline"]["value"], *search.max_qps());
  EXPECT_EQ(json["server"]["trials"].size(), search.trials.size());
}

}  // namespace
}  // namespace jetchar::experiments
