// train() follows the linear warm-up schedule: with warm-up over every step the first update uses a
// learning rate of 0 (as HF's LambdaLR), so a single-step run leaves the weights as they were; with
// no warm-up the same run moves them. Entity scores come with evaluation of a token model.
#include <gtest/gtest.h>

#include "experiments/models/registry.h"
#include "experiments/training/training_runner.h"
#include "tests/experiments/batch_sources.h"

namespace jetchar::experiments {
namespace {

torch::Tensor weights_after_one_step(double warmup_proportion, TrainingResult* result = nullptr) {
  torch::manual_seed(3);
  const auto& spec = find_model("lenet5");
  auto model = make_model(spec, 10);
  testing::VectorBatchSource source({synthetic_batch(spec, 4, 10, spec.default_input, 1)});
  TrainingConfig config;
  config.warmup_proportion = warmup_proportion;
  const auto trained = train(*model, source, config, sysfs::Root());
  EXPECT_EQ(trained.status, RunStatus::kOk) << trained.error;
  if (result != nullptr) *result = trained;
  std::vector<torch::Tensor> flat;
  for (const auto& p : model->parameters()) flat.push_back(p.detach().flatten());
  return torch::cat(flat);
}

TEST(WarmupScheduleTrainingTest, TheFirstWarmUpStepHasRateZero) {
  torch::manual_seed(3);
  const auto& spec = find_model("lenet5");
  auto initial = make_model(spec, 10);
  std::vector<torch::Tensor> flat;
  for (const auto& p : initial->parameters()) flat.push_back(p.detach().flatten());
  const auto before = torch::cat(flat);

  TrainingResult result;
  EXPECT_TRUE(torch::equal(weights_after_one_step(1.0, &result), before));
  EXPECT_EQ(result.warmup_steps, 1);
  EXPECT_EQ(result.schedule_steps, 1);
  EXPECT_FALSE(torch::equal(weights_after_one_step(0.0), before));
}

TEST(WarmupScheduleTrainingTest, AProportionOutsideZeroToOneIsRefused) {
  const auto& spec = find_model("lenet5");
  auto model = make_model(spec, 10);
  testing::VectorBatchSource source({synthetic_batch(spec, 2, 10, spec.default_input, 1)});
  TrainingConfig config;
  config.warmup_proportion = 1.5;
  EXPECT_THROW(train(*model, source, config, sysfs::Root()), std::invalid_argument);
}

}  // namespace
}  // namespace jetchar::experiments
