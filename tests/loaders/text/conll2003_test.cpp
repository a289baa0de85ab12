#include "loaders/text/conll2003.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "loaders/text/text_error.h"
#include "tests/support/temp_dir.h"

namespace jetchar::loaders::text {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The head of the original eng.train (IOB1: I-X starts entities; B-X only between two adjacent
// entities of one type), with a second document.
constexpr const char* kIob1 =
    "-DOCSTART- -X- -X- O\n"
    "\n"
    "EU NNP I-NP I-ORG\n"
    "rejects VBZ I-VP O\n"
    "German JJ I-NP I-MISC\n"
    "call NN I-NP O\n"
    "to TO I-VP O\n"
    "boycott VB I-VP O\n"
    "British JJ I-NP I-MISC\n"
    "lamb NN I-NP O\n"
    ". . O O\n"
    "\n"
    "Peter NNP I-NP I-PER\n"
    "Blackburn NNP I-NP I-PER\n"
    "\n"
    "-DOCSTART- -X- -X- O\n"
    "\n"
    "Paris NNP I-NP I-LOC\n"
    "Rome NNP I-NP B-LOC\n"
    "Café NNP I-NP I-ORG\n";

// The same sentences in the IOB2 mirror (train.txt), with CRLF line ends and tab separators.
constexpr const char* kIob2 =
    "-DOCSTART- -X- -X- O\r\n"
    "\r\n"
    "EU\tNNP\tB-NP\tB-ORG\r\n"
    "rejects\tVBZ\tB-VP\tO\r\n"
    "German\tJJ\tB-NP\tB-MISC\r\n"
    "\r\n"
    "Peter NNP B-NP B-PER\r\n"
    "Blackburn NNP I-NP I-PER\r\n";

TEST(Conll2003Test, LabelIdsFollowHf) {
  EXPECT_EQ(conll_ner_label_id("O"), 0);
  EXPECT_EQ(conll_ner_label_id("B-PER"), 1);
  EXPECT_EQ(conll_ner_label_id("I-LOC"), 6);
  EXPECT_EQ(conll_ner_label_id("I-MISC"), 8);
  EXPECT_FALSE(conll_ner_label_id("B-FOO").has_value());
}

TEST(Conll2003Test, ParsesIob1DocumentsAndConvertsToIob2) {
  const ConllCorpus corpus = parse_conll2003(kIob1, "eng.train");
  EXPECT_EQ(corpus.scheme, TagScheme::kIob1);
  EXPECT_EQ(corpus.documents, 2u);
  ASSERT_EQ(corpus.sentences.size(), 3u);
  EXPECT_EQ(corpus.tokens, 14u);
  const auto& first = corpus.sentences[0];
  EXPECT_THAT(first.words, ElementsAre("EU", "rejects", "German", "call", "to", "boycott", "British", "lamb", "."));
  EXPECT_THAT(first.pos, ElementsAre("NNP", "VBZ", "JJ", "NN", "TO", "VB", "JJ", "NN", "."));
  EXPECT_EQ(first.chunk[0], "I-NP");
  // B-ORG O B-MISC O O O B-MISC O O
  EXPECT_THAT(first.ner, ElementsAre(3, 0, 7, 0, 0, 0, 7, 0, 0));
  EXPECT_EQ(first.line, 3u);
  EXPECT_EQ(first.document, 0u);
  // I-PER I-PER -> B-PER I-PER
  EXPECT_THAT(corpus.sentences[1].ner, ElementsAre(1, 2));
  // Two adjacent locations: I-LOC B-LOC -> B-LOC B-LOC; then a new ORG entity.
  EXPECT_THAT(corpus.sentences[2].ner, ElementsAre(5, 5, 3));
  EXPECT_EQ(corpus.sentences[2].document, 1u);
  EXPECT_EQ(corpus.sentences[2].words[2], "Café");
  EXPECT_EQ(corpus.converted_tags, 6u);  // EU, German, British, Peter, Paris, Café
}

TEST(Conll2003Test, ParsesIob2WithCrlfAndTabs) {
  const ConllCorpus corpus = parse_conll2003(kIob2, "train.txt");
  EXPECT_EQ(corpus.scheme, TagScheme::kIob2);
  EXPECT_EQ(corpus.converted_tags, 0u);
  ASSERT_EQ(corpus.sentences.size(), 2u);
  EXPECT_THAT(corpus.sentences[0].ner, ElementsAre(3, 0, 7));
  EXPECT_THAT(corpus.sentences[1].ner, ElementsAre(1, 2));
  EXPECT_EQ(corpus.sentences[1].words[1], "Blackburn");
  // Both spellings of the file give the same labels.
  const ConllCorpus iob1 = parse_conll2003(kIob1, "eng.train");
  EXPECT_EQ(iob1.sentences[1].ner, corpus.sentences[1].ner);
}

TEST(Conll2003Test, DeclaredIob2RejectsIob1Files) {
  EXPECT_NO_THROW(parse_conll2003(kIob2, "train.txt", TagScheme::kIob2));
  try {
    parse_conll2003(kIob1, "eng.train", TagScheme::kIob2);
    ADD_FAILURE();
  } catch (const TextFormatError& e) {
    EXPECT_THAT(e.what(), HasSubstr("eng.train: line 3"));
    EXPECT_THAT(e.what(), HasSubstr("I-ORG"));
  }
  EXPECT_EQ(parse_conll2003(kIob1, "eng.train", TagScheme::kIob1).scheme, TagScheme::kIob1);
}

TEST(Conll2003Test, MalformedLinesNameFileAndLine) {
  auto expect_error = [](std::string_view text, std::string_view needle) {
    try {
      parse_conll2003(text, "bad.txt");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const TextFormatError& e) {
      EXPECT_THAT(e.what(), HasSubstr(needle)) << e.what();
    }
  };
  expect_error("EU NNP I-NP I-ORG\nrejects VBZ O\n", "bad.txt: line 2: expected 4 columns");
  expect_error("EU NNP I-NP I-ORG extra\n", "found 5");
  expect_error("\n\nEU NNP I-NP B-FOO\n", "line 3: NER tag 'B-FOO'");
  expect_error("EU NNP I-NP O\nEU\xC3\x28 NNP I-NP O\n", "line 2: invalid UTF-8 at byte offset 16");
}

TEST(Conll2003Test, EmptyAndBlankOnlyInputsHaveNoSentences) {
  EXPECT_TRUE(parse_conll2003("", "e").sentences.empty());
  const ConllCorpus blank = parse_conll2003("\n \n\t\n-DOCSTART- -X- -X- O\n\n", "e");
  EXPECT_TRUE(blank.sentences.empty());
  EXPECT_EQ(blank.documents, 1u);
  // The last sentence needs no blank line after it.
  EXPECT_EQ(parse_conll2003("a b c O", "e").sentences.size(), 1u);
}

TEST(Conll2003Test, ReadsFilesAndNamesMissingOnes) {
  testing::TempDir dir;
  const auto path = dir.write("eng.train", kIob1);
  EXPECT_EQ(read_conll2003(path).sentences.size(), 3u);
  try {
    read_conll2003(dir.path() / "missing.txt");
    ADD_FAILURE();
  } catch (const TextFormatError& e) {
    EXPECT_THAT(e.what(), HasSubstr("missing.txt"));
  }
}

}  // namespace
}  // namespace jetchar::loaders::text
