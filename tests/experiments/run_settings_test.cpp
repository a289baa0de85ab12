// The one place a spec becomes the runners' settings: what a spec leaves unset resolves to the
// documented defaults, and every workload field reaches the trainer and the pipeline.
#include "experiments/run_settings.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace jetchar::experiments {
namespace {

TEST(RunSettingsTest, AnUnsetSpecResolvesToTheDocumentedDefaults) {
  proto::ExperimentSpec spec;
  spec.mutable_workload()->set_device("cpu");
  const auto resolved = resolve_defaults(spec);
  EXPECT_EQ(resolved.workload().task(), proto::TRAIN);
  EXPECT_EQ(resolved.workload().epochs(), 1u);
  EXPECT_EQ(resolved.workload().accumulate(), 1u);
  EXPECT_EQ(resolved.workload().precision(), proto::FP32);
  EXPECT_EQ(resolved.loader().prefetch(), 2u);
  ASSERT_TRUE(resolved.loader().has_shuffle());
  EXPECT_TRUE(resolved.loader().shuffle());
  EXPECT_EQ(resolved.cache(), proto::WARM);
  EXPECT_DOUBLE_EQ(resolved.measurement().sample_rate_hz(), 100);
  EXPECT_EQ(resolved.repetitions(), 1u);
  // Only inference warms up, and a written 0 means no warm-up at all.
  EXPECT_FALSE(resolved.workload().inference().has_warmup_batches());
  spec.mutable_workload()->set_task(proto::INFER);
  EXPECT_EQ(resolve_defaults(spec).workload().inference().warmup_batches(), 10u);
  spec.mutable_workload()->mutable_inference()->set_warmup_batches(0);
  EXPECT_EQ(resolve_defaults(spec).workload().inference().warmup_batches(), 0u);
}

TEST(RunSettingsTest, EveryWorkloadFieldReachesTheTrainerAndThePipeline) {
  proto::ExperimentSpec spec;
  auto* w = spec.mutable_workload();
  w->set_device("cpu");
  w->set_epochs(3);
  w->set_accumulate(4);
  w->set_batch_size(32);
  w->set_learning_rate(0.002);
  w->set_warmup_proportion(0.1);
  w->set_optimizer(proto::SGD);
  w->set_weight_decay(0.05);
  w->set_precision(proto::BF16);
  w->set_async(true);
  w->set_max_minibatches(7);
  w->set_seed(99);
  spec.mutable_measurement()->set_minibatch_records(true);
  spec.mutable_loader()->set_workers(3);
  spec.mutable_loader()->set_prefetch(5);
  spec.mutable_loader()->set_drop_last(true);
  spec.mutable_loader()->set_pin_memory(true);
  spec.mutable_loader()->set_shuffle(false);
  const auto resolved = resolve_defaults(spec);

  const TrainingConfig config = training_config(resolved);
  EXPECT_TRUE(config.device.is_cpu());
  EXPECT_EQ(config.epochs, 3);
  EXPECT_EQ(config.accumulate, 4);
  EXPECT_EQ(config.learning_rate, 0.002);
  EXPECT_EQ(config.warmup_proportion, 0.1);
  EXPECT_EQ(config.optimizer, OptimizerKind::kSgd);
  EXPECT_EQ(config.weight_decay, 0.05);
  EXPECT_EQ(config.precision, Precision::kBf16);
  EXPECT_FALSE(config.sync_per_batch);
  EXPECT_EQ(config.max_batches, 7);
  EXPECT_EQ(config.seed, 99u);
  EXPECT_TRUE(config.keep_minibatch_records);

  const auto pipeline = training_pipeline_options(resolved);
  EXPECT_EQ(pipeline.batch_size, 32);
  EXPECT_EQ(pipeline.num_workers, 3);
  EXPECT_EQ(pipeline.prefetch_factor, 5);
  EXPECT_TRUE(pipeline.drop_last);
  EXPECT_TRUE(pipeline.pin_memory);
  EXPECT_FALSE(pipeline.shuffle);
  EXPECT_EQ(pipeline.seed, 99u);
}

TEST(RunSettingsTest, UnsetTrainerFieldsLeaveTheTrainersOwnDefaults) {
  proto::ExperimentSpec spec;
  spec.mutable_workload()->set_device("cpu");
  const TrainingConfig config = training_config(resolve_defaults(spec));
  EXPECT_FALSE(config.learning_rate);
  EXPECT_FALSE(config.warmup_proportion);
  EXPECT_FALSE(config.optimizer);
  EXPECT_FALSE(config.weight_decay);
  EXPECT_FALSE(config.max_batches);
  EXPECT_TRUE(config.sync_per_batch);
  EXPECT_TRUE(training_pipeline_options(resolve_defaults(spec)).shuffle);
}

TEST(RunSettingsTest, TheServersLatencyBoundIsResolvedAndNoOtherScenarioKeepsOne) {
  proto::ExperimentSpec spec;
  auto* w = spec.mutable_workload();
  w->set_device("cpu");
  w->set_task(proto::INFER);
  w->mutable_inference()->set_scenario(proto::SERVER);
  EXPECT_DOUBLE_EQ(resolve_defaults(spec).workload().inference().latency_bound_ms(), 100) << "LoadGen's default";
  EXPECT_EQ(scenario_of(w->inference()), InferenceScenario::kServer);
  w->mutable_inference()->set_latency_bound_ms(15);
  EXPECT_DOUBLE_EQ(resolve_defaults(spec).workload().inference().latency_bound_ms(), 15);
  // An axis over scenarios may carry the bound in its base: only the server used it.
  w->mutable_inference()->set_scenario(proto::OFFLINE);
  EXPECT_FALSE(resolve_defaults(spec).workload().inference().has_latency_bound_ms());
  EXPECT_EQ(scenario_of(w->inference()), InferenceScenario::kOffline);
  w->mutable_inference()->clear_scenario();
  EXPECT_EQ(scenario_of(w->inference()), InferenceScenario::kBatches);
}

TEST(RunSettingsTest, PrecisionsRoundTripBetweenTheSpecAndTheTrainer) {
  for (const auto precision : {Precision::kFp32, Precision::kTf32, Precision::kAmpFp16, Precision::kBf16}) {
    proto::WorkloadSpec workload;
    workload.set_precision(proto_precision(precision));
    EXPECT_EQ(precision_of(workload), precision);
  }
}

TEST(RunSettingsTest, ADeviceThisLibTorchCannotUseIsRefusedByName) {
  proto::ExperimentSpec spec;
  spec.mutable_workload()->set_device("tpu");
  try {
    (void)training_config(resolve_defaults(spec));
    FAIL() << "tpu accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("tpu"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace jetchar::experiments
