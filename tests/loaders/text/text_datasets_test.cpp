#include "loaders/text/text_datasets.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "loaders/text/text_error.h"
#include "tests/support/temp_dir.h"

namespace jetchar::loaders::text {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr const char* kTextVocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\neu\nrejects\nwhere\n?\n";
constexpr const char* kConll = "-DOCSTART- -X- -X- O\n\nEU NNP B-NP B-ORG\nrejects VBZ B-VP O\n\n";
constexpr const char* kSquad = R"({"version":"1.1","data":[{"title":"t","paragraphs":[{"context":"EU rejects","qas":[)"
                               R"({"id":"a","question":"Where?","answers":[{"text":"EU","answer_start":0}]}]}]}]})";

TEST(TextDatasetsTest, OpensConllDirectoriesWithTheirVocabulary) {
  testing::TempDir dir;
  dir.write("conll/vocab.txt", kTextVocab);
  dir.write("conll/train.txt", kConll);
  const auto dataset = open_conll2003(dir.path() / "conll");
  EXPECT_EQ(dataset->size(), 1);
  EXPECT_EQ(dataset->info().name, "conll2003/train");
  EXPECT_THAT(dataset->info().layout.input_shape, ElementsAre(128));
  // No validation file: the error says what was looked for.
  TextDatasetOptions validation;
  validation.split = "validation";
  try {
    open_conll2003(dir.path() / "conll", validation);
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("valid.txt, eng.testa"));
  }
  EXPECT_THROW(open_conll2003(dir.path() / "absent"), std::invalid_argument);
}

TEST(TextDatasetsTest, OpensSquadFilesWithAVocabularyBesideThemOrNamed) {
  testing::TempDir dir;
  const auto file = dir.write("squad/train-v1.1.json", kSquad);
  try {
    open_squad(file);
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("vocab.txt does not exist"));
  }
  TextDatasetOptions options;
  options.vocab = dir.write("bert/vocab.txt", kTextVocab);
  options.max_length = 16;
  options.stride = 2;
  options.max_query_length = 4;
  const auto dataset = open_squad(file, options);
  EXPECT_EQ(dataset->size(), 1);
  EXPECT_EQ(dataset->info().name, "squad/train-v1.1");
  EXPECT_THAT(dataset->info().layout.input_shape, ElementsAre(16));
  EXPECT_THROW(open_squad(dir.path() / "squad"), std::invalid_argument);
}

}  // namespace
}  // namespace jetchar::loaders::text
