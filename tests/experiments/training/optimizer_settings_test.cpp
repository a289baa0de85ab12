// The optimizer and its weight decay as train --optimizer/--weight-decay and the sweep fields set
// them. Weight decay is checked by what it does to one step: from the same weights and gradients,
// a run with decay wd ends the first step at exactly -lr·wd·w0 from a run without (SGD's L2 term
// enters the first momentum buffer as wd·w0; AdamW's decoupled decay scales w0 by 1 - lr·wd
// before its update), as torch::optim::SGD and AdamW compute them. AdamW, as Hugging Face's
// Trainer groups it, leaves biases and LayerNorm parameters undecayed: they end where they end
// without decay.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "experiments/models/registry.h"
#include "experiments/training/training_runner.h"
#include "tests/experiments/batch_sources.h"

namespace jetchar::experiments {
namespace {

// The model's parameters by name after one step of `optimizer` with `weight_decay`, from the
// same start (or the start itself when `steps` is false).
std::vector<std::pair<std::string, torch::Tensor>> weights_after(const std::string& model_name, OptimizerKind optimizer,
                                                                 std::optional<double> weight_decay, bool steps,
                                                                 TrainingResult* out = nullptr) {
  const auto& spec = find_model(model_name);
  torch::manual_seed(7);
  auto model = make_model(spec);
  if (steps) {
    const bool tokens = spec.name != "lenet5";
    testing::VectorBatchSource source({synthetic_batch(
        spec, 4, tokens ? 2 : 10, tokens ? std::vector<std::int64_t>{16} : std::vector<std::int64_t>{1, 28, 28}, 3)});
    TrainingConfig config;
    config.optimizer = optimizer;
    config.learning_rate = 0.01;
    config.weight_decay = weight_decay;
    const auto result = train(*model, source, config, sysfs::Root(), spec.name);
    EXPECT_EQ(result.status, RunStatus::kOk) << result.error;
    if (out != nullptr) *out = result;
  }
  std::vector<std::pair<std::string, torch::Tensor>> weights;
  for (const auto& p : model->named_parameters()) weights.emplace_back(p.key(), p.value().detach().clone());
  return weights;
}

// Every parameter that decays ends the step -lr·wd·w0 from where it ends without decay; the
// others (`exempt`) end where they end without it. Returns how many decayed.
int expect_decay_step(const std::string& model_name, OptimizerKind optimizer,
                      const std::function<bool(const std::string&)>& exempt) {
  const double lr = 0.01, wd = 0.5;
  TrainingResult decayed;
  const auto with = weights_after(model_name, optimizer, wd, true, &decayed);
  const auto without = weights_after(model_name, optimizer, 0.0, true);
  const auto start = weights_after(model_name, optimizer, std::nullopt, false);
  EXPECT_DOUBLE_EQ(decayed.weight_decay, wd);
  EXPECT_EQ(decayed.optimizer, optimizer_name(optimizer));
  EXPECT_EQ(with.size(), start.size());
  int decaying = 0;
  for (std::size_t i = 0; i < std::min(with.size(), start.size()); ++i) {
    const auto& [name, w0] = start[i];
    const bool decays = !exempt(name);
    decaying += decays ? 1 : 0;
    const torch::Tensor expected = decays ? -lr * wd * w0 : torch::zeros_like(w0);
    // 1e-6 absolute: float32 rounds w0 - step to its ulp, 4.8e-7 for BERT's embeddings of magnitude up to 5.
    EXPECT_TRUE(torch::allclose(with[i].second - without[i].second, expected, 1e-5, 1e-6))
        << name << (decays ? " should decay" : " should not decay");
  }
  return decaying;
}

TEST(OptimizerSettingsTest, SgdWeightDecayIsAnL2TermOfTheFirstStep) {
  EXPECT_EQ(expect_decay_step("lenet5", OptimizerKind::kSgd, [](const std::string&) { return false; }), 10);
}

TEST(OptimizerSettingsTest, AdamWWeightDecayIsDecoupledAndSparesBiases) {
  const auto bias = [](const std::string& name) { return name.find("bias") != std::string::npos; };
  EXPECT_EQ(expect_decay_step("lenet5", OptimizerKind::kAdamW, bias), 5);
}

TEST(OptimizerSettingsTest, AdamWSparesLayerNormAsHuggingFaceTrainerDoes) {
  int norms = 0;
  const auto exempt = [&norms](const std::string& name) {
    const bool norm = name.find("_norm.") != std::string::npos;
    norms += norm ? 1 : 0;
    return norm || name.find("bias") != std::string::npos;
  };
  EXPECT_GT(expect_decay_step("bert-tiny", OptimizerKind::kAdamW, exempt), 0);
  EXPECT_GT(norms, 0);  // the model has LayerNorm weights, so the exemption was checked
}

TEST(OptimizerSettingsTest, DefaultsNamesAndBadValues) {
  TrainingResult sgd, adamw;
  (void)weights_after("lenet5", OptimizerKind::kSgd, std::nullopt, true, &sgd);
  (void)weights_after("lenet5", OptimizerKind::kAdamW, std::nullopt, true, &adamw);
  EXPECT_EQ(sgd.weight_decay, 0.0);  // the seed study's SGD has none
  EXPECT_EQ(adamw.weight_decay, 0.01);
  EXPECT_EQ(to_json(adamw)["settings"]["weight_decay"], 0.01);

  EXPECT_EQ(parse_optimizer("sgd"), OptimizerKind::kSgd);
  EXPECT_EQ(parse_optimizer("AdamW"), OptimizerKind::kAdamW);
  try {
    (void)parse_optimizer("adam");
    ADD_FAILURE() << "adam was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "optimizer 'adam' is not valid; valid: sgd, adamw");
  }
  const auto& spec = find_model("lenet5");
  auto model = make_model(spec);
  testing::VectorBatchSource source({synthetic_batch(spec, 4, 10, {1, 28, 28}, 3)});
  TrainingConfig config;
  config.weight_decay = -0.1;
  try {
    (void)train(*model, source, config, sysfs::Root(), spec.name);
    ADD_FAILURE() << "a negative weight decay was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "weight decay -0.1 is not valid; valid: a finite number >= 0");
  }
  EXPECT_EQ(source.epochs_started_, 0);
}

}  // namespace
}  // namespace jetchar::experiments
