#include "experiments/models/network.h"

#include <gtest/gtest.h>

namespace jetchar::experiments {
namespace {

TEST(NetworkTest, ClassificationLossAndScore) {
  loaders::Batch batch;
  batch.targets = torch::tensor({0, 1, 1}, torch::kLong);
  auto logits = torch::tensor({{5.0, 0.0}, {0.0, 5.0}, {5.0, 0.0}});
  auto score = task_score(Task::kImageClassification, logits, batch);
  EXPECT_EQ(score.correct, 2);
  EXPECT_EQ(score.total, 3);
  auto loss = task_loss(Task::kImageClassification, logits, batch).item<double>();
  EXPECT_NEAR(loss, torch::nn::functional::cross_entropy(logits, batch.targets).item<double>(), 1e-9);
}

TEST(NetworkTest, TokenClassificationIgnoresMinus100) {
  loaders::Batch batch;
  batch.targets = torch::tensor({{0, -100, 1}}, torch::kLong);
  auto logits = torch::tensor({{{5.0, 0.0}, {5.0, 0.0}, {5.0, 0.0}}});
  auto score = task_score(Task::kTokenClassification, logits, batch);
  EXPECT_EQ(score.correct, 1);
  EXPECT_EQ(score.total, 2);
  auto loss = task_loss(Task::kTokenClassification, logits, batch).item<double>();
  // Mean over the two scored tokens: one near 0, one near 5.
  EXPECT_NEAR(loss, (std::log1p(std::exp(-5.0)) + std::log1p(std::exp(5.0))) / 2, 1e-5);
}

TEST(NetworkTest, QuestionAnsweringNeedsStartAndEnd) {
  loaders::Batch batch;
  batch.targets = torch::tensor({{0, 1}, {1, 1}}, torch::kLong);
  // logits [B=2, L=2, 2]; both predict start 0, end 1.
  auto logits = torch::tensor({{{5.0, 0.0}, {0.0, 5.0}}, {{5.0, 0.0}, {0.0, 5.0}}});
  auto score = task_score(Task::kQuestionAnswering, logits, batch);
  EXPECT_EQ(score.correct, 1);
  EXPECT_EQ(score.total, 2);
  EXPECT_GT(task_loss(Task::kQuestionAnswering, logits, batch).item<double>(), 0.0);
}

TEST(NetworkTest, ParameterCountSkipsFrozenParametersAndBuffers) {
  torch::nn::BatchNorm1d norm(4);  // 8 parameters, running stats are buffers
  EXPECT_EQ(parameter_count(*norm), 8);
  norm->weight.set_requires_grad(false);
  EXPECT_EQ(parameter_count(*norm), 4);
}

}  // namespace
}  // namespace jetchar::experiments
