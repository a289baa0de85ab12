// ELECTRA pretraining end to end, through the route every run takes (experiments/run_settings.h,
// experiments/training_workload.h): electra-small from random weights on a small corpus the test
// writes (with one layer per encoder), repeated so that it can be learnt
// (tests/experiments/training/masked_lm_training_test.cpp's corpus). A real training of a few dozen AdamW steps: the
// joint loss falls, and the discriminator tells replaced tokens from original ones better than the base rate (calling
// every token original).
#include <gtest/gtest.h>

#include <string>

#include "experiments/models/electra.h"
#include "experiments/run_settings.h"
#include "experiments/training_workload.h"
#include "sysfs/root.h"
#include "tests/experiments/training/repeated_corpus.h"
#include "tests/support/temp_dir.h"

namespace jetchar::experiments {
namespace {

constexpr int kEpochs = 30;

TEST(ElectraTrainingTest, ElectraSmallLearnsToTellReplacedTokens) {
  jetchar::testing::TempDir dir;
  const auto file = testing::write_repeated_corpus(dir);
  proto::ExperimentSpec spec;
  auto* w = spec.mutable_workload();
  w->set_model("electra-small");
  w->set_dataset("corpus:" + file.string() + "?max_length=32&short_seq_prob=0");
  w->set_batch_size(8);
  w->set_epochs(kEpochs);
  w->set_learning_rate(3e-4);  // at 1e-3 the discriminator settles on calling every token original
  w->set_seed(1);
  w->set_device("cpu");
  const auto resolved = resolve_defaults(spec);
  auto workload = open_training_workload(resolved);
  EXPECT_EQ(workload.model_spec.vocab_size, 23);  // the corpus's vocab.txt, as for masked LM
  ASSERT_EQ(workload.model->task(), Task::kReplacedTokenDetection);
  ASSERT_EQ(dynamic_cast<ElectraForPreTrainingImpl&>(*workload.model).config().discriminator.vocab_size, 23);
  // electra-small's widths with one layer per encoder, so that enough steps fit in a unit test.
  auto config = electra_config("electra-small");
  config.discriminator.vocab_size = 23;
  config.discriminator.layers = config.generator.layers = 1;
  torch::manual_seed(1);
  workload.model = ElectraForPreTraining(config).ptr();

  const auto result = train(*workload.model, *workload.pipeline, workload.config, sysfs::Root(), w->model());
  ASSERT_EQ(result.status, RunStatus::kOk) << result.error;
  ASSERT_EQ(result.epochs.size(), static_cast<std::size_t>(kEpochs));
  const auto& first = result.epochs.front();
  const auto& last = result.epochs.back();
  ASSERT_TRUE(first.mean_loss && last.mean_loss && last.train_accuracy);
  EXPECT_LT(*last.mean_loss, 0.8 * *first.mean_loss);

  // The discriminator against the base rate on the same corrupted sequences (the generator samples
  // anew each pass): in training mode, as the epochs' accuracy is measured.
  torch::NoGradGuard no_grad;
  std::int64_t correct = 0, judged = 0, original = 0;
  double replaced_logits = 0, original_logits = 0;
  workload.pipeline->start_epoch(kEpochs);
  while (auto batch = workload.pipeline->next()) {
    const auto output = workload.model->forward_batch(*batch);
    const auto score = task_score(Task::kReplacedTokenDetection, output, *batch);
    correct += score.correct;
    judged += score.total;
    const auto tokens = batch->attention_mask.eq(1);
    const auto is_original = output.select(2, 1).lt(0.5).logical_and(tokens);
    const auto is_replaced = output.select(2, 1).gt(0.5).logical_and(tokens);
    original += is_original.sum().item<std::int64_t>();
    replaced_logits += output.select(2, 0).masked_select(is_replaced).sum().item<double>();
    original_logits += output.select(2, 0).masked_select(is_original).sum().item<double>();
  }
  const auto replaced = judged - original;
  ASSERT_GT(replaced, 0);
  const double accuracy = static_cast<double>(correct) / static_cast<double>(judged);
  const double base_rate = static_cast<double>(original) / static_cast<double>(judged);
  const double mean_replaced = replaced_logits / static_cast<double>(replaced);
  const double mean_original = original_logits / static_cast<double>(original);
  std::cout << "ELECTRA loss " << *first.mean_loss << " -> " << *last.mean_loss << ", discriminator accuracy "
            << accuracy << " vs base rate " << base_rate << " (last epoch's train accuracy " << *last.train_accuracy
            << "), mean score of replaced tokens above original ones by " << mean_replaced - mean_original << "\n";
  EXPECT_GT(accuracy, base_rate + 0.01);
  // Its scores tell the two apart: replaced tokens score higher on average.
  EXPECT_GT(mean_replaced, mean_original + 1.0);
}

}  // namespace
}  // namespace jetchar::experiments
