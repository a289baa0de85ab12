#include "loaders/text/conll2003_dataset.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "loaders/text/text_error.h"
#include "tests/support/temp_dir.h"

namespace jetchar::loaders::text {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// ids: [PAD]=0 [UNK]=1 [CLS]=2 [SEP]=3 eu=4 rejects=5 german=6 call=7 peter=8 black=9 ##burn=10 .=11 cafe=12
constexpr const char* kConllVocab =
    "[PAD]\n[UNK]\n[CLS]\n[SEP]\neu\nrejects\ngerman\ncall\npeter\nblack\n##burn\n.\ncafe\n";

// IOB1, as in the original eng.train.
constexpr const char* kTrain =
    "-DOCSTART- -X- -X- O\n"
    "\n"
    "EU NNP I-NP I-ORG\n"
    "rejects VBZ I-VP O\n"
    "German JJ I-NP I-MISC\n"
    "call NN I-NP O\n"
    ". . O O\n"
    "\n"
    "Peter NNP I-NP I-PER\n"
    "Blackburn NNP I-NP I-PER\n"
    "Café NNP I-NP I-ORG\n"
    "\n";

struct ConllBuffers {
  explicit ConllBuffers(std::size_t length) : ids(length), mask(length), types(length), target(length) {}
  SampleOut out() { return SampleOut{{}, ids, target, mask, types}; }
  std::vector<std::int64_t> ids, mask, types, target;
};

class Conll2003DatasetTest : public ::testing::Test {
 protected:
  testing::TempDir dir_;
  WordPieceTokenizer tokenizer_ = WordPieceTokenizer::from_file(dir_.write("vocab.txt", kConllVocab));
  Rng rng_{1};
};

TEST(FirstPieceLabelsTest, LabelsOnlyTheFirstPieceOfEachWord) {
  const std::vector<std::int64_t> word_ids{-1, 0, 1, 1, 1, 2, -1, -1};
  const std::vector<std::int8_t> labels{3, 1, 0};
  EXPECT_THAT(first_piece_labels(word_ids, labels), ElementsAre(-100, 3, 1, -100, -100, 0, -100, -100));
}

TEST_F(Conll2003DatasetTest, SamplesCarryIdsMaskAndFirstPieceLabels) {
  const Conll2003Dataset dataset(dir_.write("eng.train", kTrain), tokenizer_, 8);
  EXPECT_EQ(dataset.size(), 2);
  EXPECT_EQ(dataset.scheme(), TagScheme::kIob1);
  EXPECT_EQ(dataset.documents(), 1u);
  const DatasetInfo& info = dataset.info();
  EXPECT_EQ(info.format, "conll2003");
  EXPECT_EQ(info.name, "eng.train");
  EXPECT_EQ(info.classes.size(), 9u);
  EXPECT_EQ(info.classes[3], "B-ORG");
  EXPECT_EQ(info.layout.input_type, InputType::kInt64);
  EXPECT_THAT(info.layout.input_shape, ElementsAre(8));
  EXPECT_THAT(info.layout.target_shape, ElementsAre(8));
  EXPECT_TRUE(info.layout.has_attention_mask);
  EXPECT_GT(info.bytes, 0u);

  ConllBuffers b(8);
  ASSERT_TRUE(dataset.get(0, rng_, b.out()).ok);
  EXPECT_THAT(b.ids, ElementsAre(2, 4, 5, 6, 7, 11, 3, 0));
  EXPECT_THAT(b.mask, ElementsAre(1, 1, 1, 1, 1, 1, 1, 0));
  EXPECT_THAT(b.types, ElementsAre(0, 0, 0, 0, 0, 0, 0, 0));
  // IOB1 I-ORG / I-MISC starting entities became B-ORG (3) / B-MISC (7).
  EXPECT_THAT(b.target, ElementsAre(-100, 3, 0, 7, 0, 0, -100, -100));

  // Blackburn -> black ##burn: B-PER, I-PER on the first pieces only; Café -> cafe (accent stripped).
  ASSERT_TRUE(dataset.get(1, rng_, b.out()).ok);
  EXPECT_THAT(b.ids, ElementsAre(2, 8, 9, 10, 12, 3, 0, 0));
  EXPECT_THAT(b.target, ElementsAre(-100, 1, 2, -100, 3, -100, -100, -100));
  EXPECT_THAT(b.mask, ElementsAre(1, 1, 1, 1, 1, 1, 0, 0));
}

TEST_F(Conll2003DatasetTest, LongSentencesAreCutToMaxLength) {
  const Conll2003Dataset dataset(dir_.write("eng.train", kTrain), tokenizer_, 4);
  EXPECT_EQ(dataset.truncated_sentences(), 2u);
  // Said, so that a run's result carries it (never a silent cut).
  ASSERT_EQ(dataset.info().notes.size(), 1u);
  EXPECT_THAT(dataset.info().notes[0], ::testing::HasSubstr("2 of 2 sentences have more than 4 word pieces"));
  ConllBuffers b(4);
  ASSERT_TRUE(dataset.get(1, rng_, b.out()).ok);
  EXPECT_THAT(b.ids, ElementsAre(2, 8, 9, 3));
  EXPECT_THAT(b.target, ElementsAre(-100, 1, 2, -100));
}

TEST_F(Conll2003DatasetTest, SentencesThatFitSayNothing) {
  const Conll2003Dataset dataset(dir_.write("eng.train", kTrain), tokenizer_, 64);
  EXPECT_TRUE(dataset.info().notes.empty());
}

TEST_F(Conll2003DatasetTest, BadIndexOrOutputIsAStatusNotACrash) {
  const Conll2003Dataset dataset(dir_.write("eng.train", kTrain), tokenizer_, 8);
  ConllBuffers b(8);
  const SampleStatus out_of_range = dataset.get(2, rng_, b.out());
  EXPECT_FALSE(out_of_range.ok);
  EXPECT_THAT(out_of_range.error, HasSubstr("out of range 0..1"));
  ConllBuffers small(7);
  EXPECT_FALSE(dataset.get(0, rng_, small.out()).ok);
}

TEST_F(Conll2003DatasetTest, FindsSplitsInBothLayoutsAndReportsBadFiles) {
  dir_.write("data/eng.testa", kTrain);
  dir_.write("data/test.txt", kTrain);
  EXPECT_EQ(Conll2003Dataset::split_file(dir_.path() / "data", "validation").filename(), "eng.testa");
  EXPECT_EQ(Conll2003Dataset::split_file(dir_.path() / "data", "test").filename(), "test.txt");
  EXPECT_THROW(Conll2003Dataset::split_file(dir_.path() / "data", "train"), std::invalid_argument);
  EXPECT_THROW(Conll2003Dataset::split_file(dir_.path() / "data", "nope"), std::invalid_argument);
  try {
    const Conll2003Dataset bad(dir_.write("bad.txt", "EU NNP I-ORG\n"), tokenizer_, 8);
    ADD_FAILURE();
  } catch (const TextFormatError& e) {
    EXPECT_THAT(e.what(), HasSubstr("bad.txt: line 1: expected 4 columns"));
  }
}

}  // namespace
}  // namespace jetchar::loaders::text
