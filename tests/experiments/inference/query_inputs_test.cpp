// The inputs an inference run takes from a data set: SQuAD dev windows in order, B per query, the
// last query filled up from the first windows, each sample exactly what the data set writes.
#include "experiments/inference/query_inputs.h"

#include <gtest/gtest.h>

#include <torch/torch.h>

#include "loaders/rng.h"
#include "loaders/text/squad_dataset.h"
#include "tests/support/squad_sample.h"
#include "tests/support/temp_dir.h"

namespace jetchar::experiments {
namespace {

// Three questions on a 14-piece context; at 16 positions with 4 shared every question has two
// windows: 6 samples.
class QueryInputsTest : public ::testing::Test {
 protected:
  QueryInputsTest()
      : tokenizer_(loaders::text::WordPieceTokenizer::from_file(dir_.write("vocab.txt", testing::kSquadSampleVocab))),
        dev_(dir_.write("dev-v1.1.json", testing::squad_sample_json(3)), tokenizer_,
             loaders::text::WindowOptions{.max_length = 16, .stride = 4, .max_first_length = 4, .pad = true}) {}

  testing::TempDir dir_;
  loaders::text::WordPieceTokenizer tokenizer_;
  loaders::text::SquadDataset dev_;
};

TEST_F(QueryInputsTest, EveryQueryHasTheBatchSizeAndTheLastWrapsAround) {
  ASSERT_EQ(dev_.size(), 6);
  const auto inputs = dataset_query_inputs(dev_, 4);
  EXPECT_EQ(inputs.name, "dev-v1.1.json");
  EXPECT_EQ(inputs.samples, 6);
  ASSERT_EQ(inputs.batches.size(), 2u);  // samples 0..3, then 4, 5, 0, 1
  const std::int64_t expected[2][4] = {{0, 1, 2, 3}, {4, 5, 0, 1}};
  for (std::size_t q = 0; q < 2; ++q) {
    const auto& batch = inputs.batches[q];
    ASSERT_EQ(batch.inputs.sizes(), (std::vector<std::int64_t>{4, 16}));
    ASSERT_EQ(batch.targets.sizes(), (std::vector<std::int64_t>{4, 2}));
    ASSERT_TRUE(batch.attention_mask.defined() && batch.token_type_ids.defined());
    for (std::int64_t i = 0; i < 4; ++i) {
      // The sample as the data set writes it on its own.
      std::vector<std::int64_t> ids(16), target(2), mask(16), types(16);
      loaders::Rng rng;
      loaders::SampleOut out;
      out.input_i64 = ids;
      out.target = target;
      out.attention_mask = mask;
      out.token_type_ids = types;
      ASSERT_TRUE(dev_.get(expected[q][i], rng, out).ok);
      auto row = [&](const torch::Tensor& t) {
        const auto r = t[i].contiguous();
        return std::vector<std::int64_t>(r.data_ptr<std::int64_t>(), r.data_ptr<std::int64_t>() + r.numel());
      };
      EXPECT_EQ(row(batch.inputs), ids) << "query " << q << " sample " << i;
      EXPECT_EQ(row(batch.targets), target);
      EXPECT_EQ(row(batch.attention_mask), mask);
      EXPECT_EQ(row(batch.token_type_ids), types);
    }
  }
  EXPECT_EQ(dataset_query_inputs(dev_, 6).batches.size(), 1u);
  EXPECT_EQ(dataset_query_inputs(dev_, 8).batches.size(), 1u);  // 0..5, 0, 1
  EXPECT_EQ(dataset_query_inputs(dev_, 1).batches.size(), 6u);
}

TEST_F(QueryInputsTest, ABatchSizeBelowOneIsRefused) {
  EXPECT_THROW(dataset_query_inputs(dev_, 0), std::invalid_argument);
}

}  // namespace
}  // namespace jetchar::experiments
