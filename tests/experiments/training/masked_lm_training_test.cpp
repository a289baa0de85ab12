// Masked-LM pretraining end to end, through the route every run takes (experiments/run_settings.h,
// experiments/training_workload.h): bert-tiny-mlm from random weights on a small corpus the test
// writes, repeated so that it can be learnt, tokenized with a vocab.txt beside it, packed and
// masked anew each epoch. A real training of a few dozen AdamW steps: the masked-LM loss falls
// clearly and the masked-token accuracy rises far above chance.
#include <gtest/gtest.h>

#include <string>

#include "experiments/run_settings.h"
#include "experiments/training_workload.h"
#include "sysfs/root.h"
#include "tests/experiments/training/repeated_corpus.h"
#include "tests/support/temp_dir.h"

namespace jetchar::experiments {
namespace {

TEST(MaskedLmTrainingTest, BertTinyMlmLearnsARepeatedCorpus) {
  jetchar::testing::TempDir dir;
  const auto file = testing::write_repeated_corpus(dir);
  proto::ExperimentSpec spec;
  auto* w = spec.mutable_workload();
  w->set_model("bert-tiny-mlm");
  w->set_dataset("corpus:" + file.string() + "?max_length=32&short_seq_prob=0");
  w->set_batch_size(8);
  w->set_epochs(12);
  w->set_learning_rate(2e-3);
  w->set_seed(1);
  w->set_device("cpu");
  const auto resolved = resolve_defaults(spec);
  auto workload = open_training_workload(resolved);

  // 32 documents of three sentences, one sequence each (at most 29 tokens fit).
  ASSERT_EQ(workload.dataset->size(), 32);
  ASSERT_EQ(workload.pipeline->batches_per_epoch(), 4);
  // From scratch, the model's vocabulary is the corpus's vocab.txt: 23 tokens.
  EXPECT_EQ(workload.model_spec.vocab_size, 23);
  EXPECT_EQ(workload.model->task(), Task::kMaskedLanguageModeling);
  EXPECT_EQ(parameter_count(*workload.model), 4'416'698 - (30522 - 23) * (128 + 1));

  const auto result = train(*workload.model, *workload.pipeline, workload.config, sysfs::Root(), w->model());
  ASSERT_EQ(result.status, RunStatus::kOk) << result.error;
  ASSERT_EQ(result.epochs.size(), 12u);
  EXPECT_EQ(result.optimizer, "adamw");
  const auto& first = result.epochs.front();
  const auto& last = result.epochs.back();
  ASSERT_TRUE(first.mean_loss && last.mean_loss && first.train_accuracy && last.train_accuracy);
  // Chance is ln(23) = 3.1 for the loss and 1/23 for the accuracy.
  EXPECT_GT(*first.mean_loss, 2.0);
  EXPECT_LT(*last.mean_loss, 0.6 * *first.mean_loss);
  EXPECT_GT(*last.train_accuracy, *first.train_accuracy + 0.25);
  EXPECT_GT(*last.train_accuracy, 0.4);
  std::cout << "masked-LM loss " << *first.mean_loss << " -> " << *last.mean_loss << ", masked accuracy "
            << *first.train_accuracy << " -> " << *last.train_accuracy << "\n";
}

}  // namespace
}  // namespace jetchar::experiments
