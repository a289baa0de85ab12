#include "loaders/text/squad_dataset.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <vector>

#include "loaders/text/text_error.h"
#include "tests/support/temp_dir.h"

namespace jetchar::loaders::text {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// ids: [PAD]=0 [UNK]=1 [CLS]=2 [SEP]=3 where=4 is=5 the=6 tower=7 ?=8 cafe=9 naive=10 東=11 京=12
// has=13 a=14 .=15 un=16 ##aff=17 ##able=18
constexpr const char* kSquadVocab =
    "[PAD]\n[UNK]\n[CLS]\n[SEP]\nwhere\nis\nthe\ntower\n?\ncafe\nnaive\n東\n京\nhas\na\n.\nun\n##aff\n##able\n";

// Pieces: cafe naive 東 京 has a tower . -- 東京 is code points 11..12 (bytes 13..18).
const std::string kSquadContext = "Café naïve 東京 has a tower.";

std::string squad_json() {
  const json qas = json::array({
      json{{"id", "q-tokyo"},
           {"question", "Where is the tower?"},
           {"answers", json::array({json{{"text", "東京"}, {"answer_start", 11}}})}},
      json{{"id", "q-naive"},
           {"question", "Where?"},
           {"answers", json::array({json{{"text", "ïve"}, {"answer_start", 7}}})}},
  });
  const json second = json::array({json{{"id", "q-un"},
                                        {"question", "the"},
                                        {"answers", json::array({json{{"text", "unaffable"}, {"answer_start", 0}},
                                                                 json{{"text", "able"}, {"answer_start", 5}}})}}});
  return json{
      {"version", "1.1"},
      {"data", json::array({json{{"title", "t"},
                                 {"paragraphs", json::array({json{{"context", kSquadContext}, {"qas", qas}},
                                                             json{{"context", "unaffable"}, {"qas", second}}})}}})}}
      .dump();
}

struct SquadBuffers {
  explicit SquadBuffers(std::size_t length) : ids(length), mask(length), types(length), target(2) {}
  SampleOut out() { return SampleOut{{}, ids, target, mask, types}; }
  std::vector<std::int64_t> ids, mask, types, target;
};

class SquadDatasetTest : public ::testing::Test {
 protected:
  testing::TempDir dir_;
  WordPieceTokenizer tokenizer_ = WordPieceTokenizer::from_file(dir_.write("vocab.txt", kSquadVocab));
  std::filesystem::path file_ = dir_.write("train-v1.1.json", squad_json());
  Rng rng_{1};
};

TEST_F(SquadDatasetTest, AnswerPositionsPointAtTheAnswerPieces) {
  const SquadDataset dataset(file_, tokenizer_,
                             WindowOptions{.max_length = 24, .stride = 2, .max_first_length = 8, .pad = true});
  EXPECT_EQ(dataset.size(), 3);
  EXPECT_EQ(dataset.questions(), 3u);
  EXPECT_EQ(dataset.paragraphs(), 2u);
  EXPECT_EQ(dataset.info().format, "squad");
  EXPECT_THAT(dataset.info().layout.target_shape, ElementsAre(2));
  EXPECT_THAT(dataset.info().layout.input_shape, ElementsAre(24));

  SquadBuffers b(24);
  ASSERT_TRUE(dataset.get(0, rng_, b.out()).ok);
  EXPECT_EQ(dataset.question_id(0), "q-tokyo");
  // [CLS] where is the tower ? [SEP] cafe naive 東 京 has a tower . [SEP] [PAD]...
  EXPECT_THAT(std::vector<std::int64_t>(b.ids.begin(), b.ids.begin() + 17),
              ElementsAre(2, 4, 5, 6, 7, 8, 3, 9, 10, 11, 12, 13, 14, 7, 15, 3, 0));
  EXPECT_THAT(std::vector<std::int64_t>(b.types.begin(), b.types.begin() + 17),
              ElementsAre(0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0));
  EXPECT_EQ(b.mask[15], 1);
  EXPECT_EQ(b.mask[16], 0);
  EXPECT_THAT(b.target, ElementsAre(9, 10));  // 東, 京
  EXPECT_EQ(b.ids[static_cast<std::size_t>(b.target[0])], 11);
  EXPECT_EQ(b.ids[static_cast<std::size_t>(b.target[1])], 12);

  // "ïve" is part of the word "naïve": the answer maps to the piece that holds it.
  ASSERT_TRUE(dataset.get(1, rng_, b.out()).ok);
  EXPECT_EQ(b.ids[static_cast<std::size_t>(b.target[0])], 10);
  EXPECT_EQ(b.target[0], b.target[1]);

  // The first reference answer is the training target: "unaffable" -> un ##aff ##able.
  ASSERT_TRUE(dataset.get(2, rng_, b.out()).ok);
  EXPECT_THAT(b.target, ElementsAre(3, 5));
}

TEST_F(SquadDatasetTest, AV2FileIsKnownByItsVersionOrAnImpossibleQuestion) {
  const WindowOptions windows{.max_length = 24, .stride = 2, .max_first_length = 8, .pad = true};
  EXPECT_FALSE(SquadDataset(file_, tokenizer_, windows).version_2());
  // dev-v2.0.json says "v2.0"; its unanswerable question has no gold answer and targets [CLS].
  json v2 = json::parse(squad_json());
  v2["version"] = "v2.0";
  auto& naive = v2["data"][0]["paragraphs"][0]["qas"][1];
  naive["answers"] = json::array();
  naive["is_impossible"] = true;
  const SquadDataset dataset(dir_.write("dev-v2.0.json", v2.dump()), tokenizer_, windows);
  EXPECT_TRUE(dataset.version_2());
  EXPECT_TRUE(dataset.gold_answers(1).empty());
  EXPECT_THAT(dataset.gold_answers(0), ElementsAre("東京"));
  SquadBuffers b(24);
  ASSERT_TRUE(dataset.get(1, rng_, b.out()).ok);
  EXPECT_THAT(b.target, ElementsAre(0, 0));
  // Without the field, an impossible question makes it v2.0; "v2.0" alone does too.
  v2.erase("version");
  EXPECT_TRUE(SquadDataset(dir_.write("no-version.json", v2.dump()), tokenizer_, windows).version_2());
  json answerable = json::parse(squad_json());
  answerable["version"] = "v2.0";
  EXPECT_TRUE(SquadDataset(dir_.write("answerable-v2.0.json", answerable.dump()), tokenizer_, windows).version_2());
}

TEST_F(SquadDatasetTest, LongContextsBecomeOverlappingWindows) {
  // A window holds 12 - 3 - (question pieces) context pieces; consecutive windows share 1.
  const SquadDataset dataset(file_, tokenizer_,
                             WindowOptions{.max_length = 12, .stride = 1, .max_first_length = 6, .pad = true});
  // Paragraph 1 has 8 pieces: q-tokyo (5 question pieces, 4 per window) gets [0,4) [3,7) [6,8),
  // q-naive (2 question pieces, 7 per window) [0,7) [6,8); paragraph 2 fits one window.
  ASSERT_EQ(dataset.size(), 6);
  SquadBuffers b(12);
  std::vector<std::pair<std::int64_t, std::int64_t>> targets;
  for (std::int64_t i = 0; i < 3; ++i) {
    ASSERT_TRUE(dataset.get(i, rng_, b.out()).ok);
    targets.emplace_back(b.target[0], b.target[1]);
    EXPECT_EQ(dataset.question_id(i), "q-tokyo");
  }
  // 東京 are context pieces 2 and 3: wholly inside the first window only (positions 7 + 2, 7 + 3).
  EXPECT_EQ(targets[0], (std::pair<std::int64_t, std::int64_t>{9, 10}));
  EXPECT_EQ(targets[1], (std::pair<std::int64_t, std::int64_t>{0, 0}));
  EXPECT_EQ(targets[2], (std::pair<std::int64_t, std::int64_t>{0, 0}));
  EXPECT_EQ(dataset.feature(1).window_begin, 3u);
  ASSERT_TRUE(dataset.get(1, rng_, b.out()).ok);
  // [CLS] where is the tower ? [SEP] 京 has a tower [SEP]: no padding needed.
  EXPECT_THAT(b.ids, ElementsAre(2, 4, 5, 6, 7, 8, 3, 12, 13, 14, 7, 3));
}

TEST_F(SquadDatasetTest, QuestionsAreCutToMaxFirstLength) {
  const SquadDataset dataset(file_, tokenizer_,
                             WindowOptions{.max_length = 24, .stride = 2, .max_first_length = 2, .pad = true});
  EXPECT_EQ(dataset.truncated_questions(), 1u);
  SquadBuffers b(24);
  ASSERT_TRUE(dataset.get(0, rng_, b.out()).ok);
  EXPECT_THAT(std::vector<std::int64_t>(b.ids.begin(), b.ids.begin() + 4), ElementsAre(2, 4, 5, 3));
  EXPECT_THAT(b.target, ElementsAre(6, 7));
}

TEST_F(SquadDatasetTest, ImpossibleWindowOptionsAndBadFilesAreErrors) {
  EXPECT_THROW(
      SquadDataset(file_, tokenizer_, WindowOptions{.max_length = 10, .stride = 4, .max_first_length = 4, .pad = true}),
      std::invalid_argument);
  json wrong = json::parse(squad_json());
  wrong["data"][0]["paragraphs"][0]["qas"][0]["answers"][0]["answer_start"] = 13;  // a byte offset
  try {
    const SquadDataset dataset(dir_.write("wrong.json", wrong.dump()), tokenizer_, WindowOptions{});
    ADD_FAILURE();
  } catch (const TextFormatError& e) {
    EXPECT_THAT(e.what(), HasSubstr("wrong.json"));
    EXPECT_THAT(e.what(), HasSubstr("q-tokyo"));
  }
  const SquadDataset dataset(file_, tokenizer_,
                             WindowOptions{.max_length = 24, .stride = 2, .max_first_length = 8, .pad = true});
  SquadBuffers wrong_size(23);
  EXPECT_FALSE(dataset.get(0, rng_, wrong_size.out()).ok);
  SquadBuffers b(24);
  EXPECT_FALSE(dataset.get(-1, rng_, b.out()).ok);
}

TEST_F(SquadDatasetTest, SpansMapBackToTheContextAsWritten) {
  const SquadDataset dataset(file_, tokenizer_,
                             WindowOptions{.max_length = 24, .stride = 2, .max_first_length = 8, .pad = true});
  // q-tokyo: [CLS] + 5 question pieces + [SEP], then the 8 context pieces at positions 7..14.
  EXPECT_EQ(dataset.context_positions(0), (std::pair<std::int64_t, std::int64_t>{7, 14}));
  EXPECT_EQ(dataset.span_text(0, 7, 8), "Café naïve");  // accents and case as written, not as tokenized
  EXPECT_EQ(dataset.span_text(0, 9, 10), "東京");
  EXPECT_EQ(dataset.span_text(0, 13, 14), "tower.");
  // q-un: one question piece; "##aff" alone is the middle of the word.
  EXPECT_EQ(dataset.context_positions(2), (std::pair<std::int64_t, std::int64_t>{3, 5}));
  EXPECT_EQ(dataset.span_text(2, 4, 4), "aff");
  EXPECT_THAT(dataset.gold_answers(2), ElementsAre("unaffable", "able"));
  EXPECT_THROW((void)dataset.span_text(0, 6, 8), std::out_of_range);   // [SEP] is no context
  EXPECT_THROW((void)dataset.span_text(0, 9, 15), std::out_of_range);  // past the last piece
  EXPECT_THROW((void)dataset.span_text(0, 10, 9), std::out_of_range);  // end before start
}

TEST_F(SquadDatasetTest, SpansOfLaterWindowsMapToTheirOwnPieces) {
  const SquadDataset dataset(file_, tokenizer_,
                             WindowOptions{.max_length = 12, .stride = 1, .max_first_length = 6, .pad = true});
  // q-tokyo's second window holds pieces 3..6 (京 has a tower) at positions 7..10.
  EXPECT_EQ(dataset.context_positions(1), (std::pair<std::int64_t, std::int64_t>{7, 10}));
  EXPECT_EQ(dataset.span_text(1, 7, 8), "京 has");
  // Its third window holds pieces 6..7 (tower .).
  EXPECT_EQ(dataset.context_positions(2), (std::pair<std::int64_t, std::int64_t>{7, 8}));
  EXPECT_EQ(dataset.span_text(2, 7, 8), "tower.");
}

TEST_F(SquadDatasetTest, TheValidationSplitIsTheDevFileNeverTheTrainingFile) {
  EXPECT_THROW((void)SquadDataset::split_file(file_, "validation"), std::invalid_argument);  // no dev file yet
  try {
    (void)SquadDataset::split_file(file_, "validation");
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr((dir_.path() / "dev-v1.1.json").string()));
    EXPECT_THAT(e.what(), HasSubstr("dev=FILE"));
  }
  const auto dev = dir_.write("dev-v1.1.json", squad_json());
  EXPECT_EQ(SquadDataset::split_file(file_, "validation"), dev);
  EXPECT_EQ(SquadDataset::split_file(file_, "dev"), dev);
  EXPECT_EQ(SquadDataset::split_file(dir_.path(), "validation"), dir_.path() / "dev-v1.1.json");
  EXPECT_EQ(SquadDataset::split_file(dir_.path(), "train"), file_);
  EXPECT_EQ(SquadDataset::split_file(file_, "train"), file_);
  const auto other = dir_.write("my-dev.json", squad_json());
  EXPECT_EQ(SquadDataset::split_file(file_, "validation", other), other);
  try {
    (void)SquadDataset::split_file(file_, "validation", file_);
    ADD_FAILURE() << "the training file was accepted as the dev file";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("is the training file"));
  }
  try {
    (void)SquadDataset::split_file(file_, "test");
    ADD_FAILURE() << "SQuAD has no test split";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("'test' is not one of train, validation"));
  }
  EXPECT_THROW((void)SquadDataset::split_file(other, "validation"), std::invalid_argument);  // no 'train' in the name
}

TEST(AnswerPieceRangeTest, OverlapInCodePoints) {
  const std::vector<WordPiece> pieces{{1, {0, 4}}, {2, {5, 7}}, {3, {7, 10}}, {4, {11, 12}}};
  EXPECT_EQ(answer_piece_range(pieces, 5, 5), (std::pair<std::size_t, std::size_t>{1, 2}));
  EXPECT_EQ(answer_piece_range(pieces, 8, 1), (std::pair<std::size_t, std::size_t>{2, 2}));
  EXPECT_EQ(answer_piece_range(pieces, 3, 9), (std::pair<std::size_t, std::size_t>{0, 3}));
  EXPECT_FALSE(answer_piece_range(pieces, 4, 1).has_value());  // the space between pieces
  EXPECT_FALSE(answer_piece_range(pieces, 12, 0).has_value());
}

}  // namespace
}  // namespace jetchar::loaders::text
