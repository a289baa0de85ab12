#include "loaders/text/pretraining_corpus_dataset.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "loaders/dataset_spec.h"
#include "loaders/text/text_error.h"
#include "tests/support/temp_dir.h"

namespace jetchar::loaders::text {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// ids: [PAD]=0 [UNK]=1 [CLS]=2 [SEP]=3 [MASK]=4 the=5 cat=6 sat=7 on=8 mat=9 dog=10 ran=11 . =12
constexpr const char* kCorpusVocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\non\nmat\ndog\nran\n.\n";
constexpr const char* kCorpus =
    "The cat sat on the mat.\nThe dog ran.\n\nThe dog sat.\nThe cat ran on the mat.\nThe mat sat.\n";

struct CorpusBuffers {
  explicit CorpusBuffers(std::size_t length) : ids(length), mask(length), types(length), target(length) {}
  SampleOut out() { return SampleOut{{}, ids, target, mask, types}; }
  std::vector<std::int64_t> ids, mask, types, target;
};

class PretrainingCorpusDatasetTest : public ::testing::Test {
 protected:
  std::shared_ptr<Dataset> open(const std::string& options = "") const {
    return open_dataset(DatasetSpec::parse("corpus:" + corpus_.string() + "?short_seq_prob=0" + options));
  }
  testing::TempDir dir_;
  std::filesystem::path vocab_ = dir_.write("vocab.txt", kCorpusVocab);
  std::filesystem::path corpus_ = dir_.write("corpus.txt", kCorpus);
};

TEST_F(PretrainingCorpusDatasetTest, PacksDocumentsIntoMaskedSequencesWithSegments) {
  const auto dataset = open("&max_length=16");  // vocab.txt beside the corpus
  const auto& info = dataset->info();
  EXPECT_EQ(info.name, "corpus/corpus.txt");
  EXPECT_EQ(info.format, "text-corpus");
  EXPECT_EQ(info.layout.input_shape, (std::vector<std::int64_t>{16}));
  EXPECT_EQ(info.layout.target_shape, (std::vector<std::int64_t>{16}));
  EXPECT_EQ(info.layout.target_vocab_size, 13);
  EXPECT_TRUE(info.classes.empty());
  const auto& corpus = dynamic_cast<const PretrainingCorpusDataset&>(*dataset);
  EXPECT_EQ(corpus.documents(), 2u);
  EXPECT_EQ(corpus.sentences(), 5u);
  EXPECT_EQ(corpus.tokens(), 7u + 4u + 4u + 7u + 4u);
  // Document 1 (7 + 4 tokens) fits one pair of 13; document 2 reaches 13 tokens only with its
  // third sentence, so it is one sequence too, cut by 2 tokens.
  ASSERT_EQ(dataset->size(), 2);
  CorpusBuffers b(16);
  Rng rng(3, 0, 0);
  ASSERT_TRUE(dataset->get(0, rng, b.out()).ok);
  // [CLS] the cat sat on the mat . [SEP] the dog ran . [SEP] [PAD] [PAD], some positions masked.
  const std::vector<std::int64_t> unmasked = {2, 5, 6, 7, 8, 5, 9, 12, 3, 5, 10, 11, 12, 3, 0, 0};
  EXPECT_EQ(b.types, (std::vector<std::int64_t>{0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0}));
  EXPECT_EQ(b.mask, (std::vector<std::int64_t>{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0}));
  int masked = 0;
  for (std::size_t i = 0; i < 16; ++i) {
    if (b.target[i] == -100) {
      EXPECT_EQ(b.ids[i], unmasked[i]) << i;
    } else {
      ++masked;
      EXPECT_EQ(b.target[i], unmasked[i]) << i;
    }
  }
  EXPECT_EQ(masked, 2);  // round(14 x 0.15)
  // The same (seed, epoch, index) masks the same positions.
  CorpusBuffers again(16);
  Rng same(3, 0, 0);
  ASSERT_TRUE(dataset->get(0, same, again.out()).ok);
  EXPECT_EQ(again.ids, b.ids);
  EXPECT_EQ(again.target, b.target);
  EXPECT_FALSE(dataset->get(2, rng, b.out()).ok);
  CorpusBuffers wrong(8);
  EXPECT_FALSE(dataset->get(0, rng, wrong.out()).ok);
}

TEST_F(PretrainingCorpusDatasetTest, MaskProbabilityAndAnExplicitVocabularyAreOptions) {
  testing::TempDir elsewhere;
  const auto moved = elsewhere.write("c.txt", kCorpus);
  const auto dataset = open_dataset(DatasetSpec::parse("corpus:" + moved.string() + "?vocab=" + vocab_.string() +
                                                       "&mask_prob=1&max_length=64&short_seq_prob=0"));
  CorpusBuffers b(64);
  Rng rng(1);
  ASSERT_TRUE(dataset->get(0, rng, b.out()).ok);
  int masked = 0;
  for (const auto t : b.target) masked += t != -100;
  EXPECT_EQ(masked, 11);  // every token but [CLS] and the two [SEP]s
}

TEST_F(PretrainingCorpusDatasetTest, BadInputIsNamed) {
  testing::TempDir bare;
  const auto lonely = bare.write("corpus.txt", kCorpus);
  EXPECT_THAT([&] { open_dataset(DatasetSpec::parse("corpus:" + lonely.string())); },
              ThrowsMessage<std::invalid_argument>(HasSubstr("no WordPiece vocabulary for " + lonely.string())));
  EXPECT_THAT([&] { open_dataset(DatasetSpec::parse("corpus:" + dir_.path().string())); },
              ThrowsMessage<std::invalid_argument>(HasSubstr("not a file")));
  const auto empty = dir_.write("empty.txt", "\n\n");
  EXPECT_THAT([&] { open_dataset(DatasetSpec::parse("corpus:" + empty.string())); },
              ThrowsMessage<TextFormatError>(HasSubstr("empty.txt: no sentences")));
  const auto binary = dir_.write("weights.bin", std::string("\x93NUMPY\x01\x00v\0\0\0", 12));
  EXPECT_THAT([&] { open_dataset(DatasetSpec::parse("corpus:" + binary.string())); },
              ThrowsMessage<TextFormatError>(HasSubstr("weights.bin:1: control byte 0x01")));
  const auto no_mask = dir_.write("nomask/vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\n");
  EXPECT_THAT([&] { open_dataset(DatasetSpec::parse("corpus:" + corpus_.string() + "?vocab=" + no_mask.string())); },
              ThrowsMessage<TextFormatError>(HasSubstr("has no [MASK] token")));
  EXPECT_THAT(
      [&] { open("&mask_prob=0"); },
      ThrowsMessage<std::invalid_argument>(HasSubstr("option mask_prob=0 is not valid; expected a number in (0, 1]")));
  EXPECT_THAT([&] { open("&max_length=4"); },
              ThrowsMessage<std::invalid_argument>(HasSubstr("option max_length=4 is not valid")));
  EXPECT_THAT([&] { open("&stride=4"); }, ThrowsMessage<std::invalid_argument>(HasSubstr("unknown option 'stride'")));
  EXPECT_THAT([&] { open_dataset(DatasetSpec::parse("corpus/validation:" + corpus_.string())); },
              ThrowsMessage<std::invalid_argument>(HasSubstr("name a held-out corpus with ?dev=FILE")));
  EXPECT_THAT([&] { open_dataset(DatasetSpec::parse("corpus/test:" + corpus_.string())); },
              ThrowsMessage<std::invalid_argument>(HasSubstr("split 'test' is not one of train, validation (dev)")));
}

TEST_F(PretrainingCorpusDatasetTest, TheValidationSplitIsTheHeldOutCorpusDevNames) {
  const auto dev = dir_.write("held-out.txt", "The dog ran on the mat.\n");
  const auto dataset =
      open_dataset(DatasetSpec::parse("corpus/validation:" + corpus_.string() + "?dev=" + dev.string()));
  EXPECT_EQ(dataset->info().name, "corpus/held-out.txt");
  EXPECT_EQ(dataset->size(), 1);
}

}  // namespace
}  // namespace jetchar::loaders::text
