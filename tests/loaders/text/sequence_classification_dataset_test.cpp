#include "loaders/text/sequence_classification_dataset.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "loaders/dataset_spec.h"
#include "loaders/text/text_datasets.h"
#include "loaders/text/text_error.h"
#include "tests/support/temp_dir.h"

namespace jetchar::loaders::text {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// ids: [PAD]=0 [UNK]=1 [CLS]=2 [SEP]=3 the=4 movie=5 is=6 great=7 bad=8 ##ly=9 film=10
constexpr const char* kReviewVocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\nmovie\nis\ngreat\nbad\n##ly\nfilm\n";

struct ReviewBuffers {
  explicit ReviewBuffers(std::size_t length) : ids(length), mask(length), types(length), target(1) {}
  SampleOut out() { return SampleOut{{}, ids, target, mask, types}; }
  std::vector<std::int64_t> ids, mask, types, target;
};

class SequenceClassificationDatasetTest : public ::testing::Test {
 protected:
  testing::TempDir dir_;
  WordPieceTokenizer tokenizer_ = WordPieceTokenizer::from_file(dir_.write("vocab.txt", kReviewVocab));
  Rng rng_{1};
};

TEST_F(SequenceClassificationDatasetTest, SingleTextsBecomeClsTextSepWithTheLabelsId) {
  const SequenceClassificationDataset dataset(
      dir_.write("train.tsv", "sentence\tlabel\nthe movie is great\t1\nbadly\t0\nfilm\t10\n"), tokenizer_, 8);
  ASSERT_EQ(dataset.size(), 3);
  // Integer labels sort by value: 0, 1, 10.
  EXPECT_THAT(dataset.info().classes, ElementsAre("0", "1", "10"));
  EXPECT_TRUE(dataset.info().layout.target_shape.empty());
  ReviewBuffers b(8);
  ASSERT_TRUE(dataset.get(0, rng_, b.out()).ok);
  EXPECT_THAT(b.ids, ElementsAre(2, 4, 5, 6, 7, 3, 0, 0));
  EXPECT_THAT(b.mask, ElementsAre(1, 1, 1, 1, 1, 1, 0, 0));
  EXPECT_THAT(b.types, ElementsAre(0, 0, 0, 0, 0, 0, 0, 0));
  EXPECT_EQ(b.target[0], 1);
  ASSERT_TRUE(dataset.get(1, rng_, b.out()).ok);
  EXPECT_THAT(b.ids, ElementsAre(2, 8, 9, 3, 0, 0, 0, 0));
  EXPECT_EQ(b.target[0], 0);
  ASSERT_TRUE(dataset.get(2, rng_, b.out()).ok);
  EXPECT_EQ(b.target[0], 2);
  EXPECT_FALSE(dataset.get(3, rng_, b.out()).ok);
}

TEST_F(SequenceClassificationDatasetTest, PairsGetSegmentOneAndAreCutFromTheLongerSide) {
  const SequenceClassificationDataset dataset(
      dir_.write("train.jsonl",
                 "{\"sentence1\":\"the movie\",\"sentence2\":\"is great\",\"label\":\"yes\"}\n"
                 "{\"sentence1\":\"the movie is great\",\"sentence2\":\"film\",\"label\":\"no\"}\n"),
      tokenizer_, 7);
  EXPECT_THAT(dataset.info().classes, ElementsAre("no", "yes"));
  EXPECT_TRUE(dataset.has_pairs());
  ReviewBuffers b(7);
  ASSERT_TRUE(dataset.get(0, rng_, b.out()).ok);
  EXPECT_THAT(b.ids, ElementsAre(2, 4, 5, 3, 6, 7, 3));
  EXPECT_THAT(b.types, ElementsAre(0, 0, 0, 0, 1, 1, 1));
  EXPECT_EQ(b.target[0], 1);
  // 4 + 1 pieces in 7 - 3 = 4 positions: the longer first text loses its last piece.
  ASSERT_TRUE(dataset.get(1, rng_, b.out()).ok);
  EXPECT_THAT(b.ids, ElementsAre(2, 4, 5, 6, 3, 10, 3));
  EXPECT_THAT(b.types, ElementsAre(0, 0, 0, 0, 0, 1, 1));
  EXPECT_EQ(dataset.truncated_examples(), 1u);
}

TEST_F(SequenceClassificationDatasetTest, DevTakesTheTrainingLabelsAndRejectsOthersNamingThem) {
  dir_.write("train.csv", "text,label\nthe movie,neg\ngreat,pos\n");
  dir_.write("dev.csv", "text,label\nbadly,pos\nfilm,neutral\n");
  dir_.write("test.csv", "text,label\nfilm,neg\n");
  TextDatasetOptions options;
  options.split = "test";
  const auto test = open_text_classification(dir_.path(), options);
  EXPECT_THAT(test->info().classes, ElementsAre("neg", "pos"));
  EXPECT_EQ(test->size(), 1);
  options.split = "validation";
  try {
    open_text_classification(dir_.path(), options);
    FAIL() << "an unknown dev label was accepted";
  } catch (const TextFormatError& error) {
    EXPECT_THAT(error.what(), HasSubstr("dev.csv:3: label 'neutral' is not in the training split's labels (neg, pos)"));
  }
  // Through the data-set spec, as `train --dataset` opens it.
  const auto train = open_dataset(DatasetSpec::parse("textcls:" + dir_.path().string() + "?max_length=16"));
  EXPECT_EQ(train->size(), 2);
  EXPECT_EQ(train->info().layout.input_shape, std::vector<std::int64_t>{16});
  EXPECT_THROW(SequenceClassificationDataset::split_file(dir_.path(), "unlabelled"), std::invalid_argument);
}

}  // namespace
}  // namespace jetchar::loaders::text
