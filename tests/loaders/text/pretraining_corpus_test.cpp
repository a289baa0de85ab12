#include "loaders/text/pretraining_corpus.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "loaders/text/text_error.h"
#include "tests/support/temp_dir.h"

namespace jetchar::loaders::text {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

std::vector<std::vector<std::string>> texts(const PretrainingCorpus& corpus) {
  std::vector<std::vector<std::string>> documents;
  for (const auto& document : corpus.documents) {
    auto& sentences = documents.emplace_back();
    for (const auto& sentence : document) sentences.push_back(sentence.text);
  }
  return documents;
}

TEST(PretrainingCorpus, BlankLinesSeparateDocumentsOfStrippedSentences) {
  const auto corpus = parse_pretraining_corpus(
      "\n\nThe first sentence.\r\n  The second one.  \n \t \nAnother document.\n\n\n\nA third\n", "c.txt");
  EXPECT_EQ(texts(corpus), (std::vector<std::vector<std::string>>{
                               {"The first sentence.", "The second one."}, {"Another document."}, {"A third"}}));
  EXPECT_EQ(corpus.sentences, 4u);
  EXPECT_EQ(corpus.documents[0][1].line, 4u);
  EXPECT_EQ(corpus.documents[2][0].line, 10u);
}

TEST(PretrainingCorpus, AnEmptyOrBlankCorpusIsRefused) {
  for (const std::string content : {"", "\n\n \n\t\n"}) {
    EXPECT_THAT([&] { parse_pretraining_corpus(content, "empty.txt"); },
                ThrowsMessage<TextFormatError>(HasSubstr("empty.txt: no sentences")));
  }
}

TEST(PretrainingCorpus, BinaryDataAndIllFormedUtf8AreNamedWithTheirLine) {
  EXPECT_THAT(
      [&] { parse_pretraining_corpus(std::string("text\nPK\x03\x04zip", 12), "model.bin"); },
      ThrowsMessage<TextFormatError>(HasSubstr("model.bin:2: control byte 0x03 at byte offset 7: not plain text")));
  EXPECT_THAT([&] { parse_pretraining_corpus(std::string("a\0b", 3), "nul.txt"); },
              ThrowsMessage<TextFormatError>(HasSubstr("nul.txt:1: control byte 0x00 at byte offset 1")));
  EXPECT_THAT([&] { parse_pretraining_corpus("fine\n\ncaf\xe9\n", "latin1.txt"); },
              ThrowsMessage<TextFormatError>(HasSubstr("latin1.txt:3: ill-formed UTF-8 at byte offset 9")));
}

TEST(PretrainingCorpus, AFileThatCannotBeReadIsNamed) {
  testing::TempDir dir;
  EXPECT_THAT([&] { read_pretraining_corpus(dir.path() / "missing.txt"); },
              ThrowsMessage<TextFormatError>(HasSubstr("missing.txt: cannot read the corpus")));
  const auto corpus = read_pretraining_corpus(dir.write("c.txt", "one\ntwo\n"));
  EXPECT_EQ(corpus.sentences, 2u);
}

}  // namespace
}  // namespace jetchar::loaders::text
