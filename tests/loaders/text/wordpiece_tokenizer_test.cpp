#include "loaders/text/wordpiece_tokenizer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "loaders/text/basic_tokenizer.h"
#include "loaders/text/text_error.h"
#include "loaders/text/utf8.h"
#include "loaders/text/vocab.h"
#include "tests/support/temp_dir.h"

namespace jetchar::loaders::text {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The vocabulary of google-research/bert's tokenization_test.py, plus the pieces of the README's
// "unaffable" example, in a real vocab.txt on disk.
constexpr const char* kClassicVocab =
    "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nwant\n##want\n##ed\nwa\nun\nrunn\n##ing\n,\nlow\nlowest\n"
    "##aff\n##able\naff\n.\n!\n?\nhello\nhow\nare\nyou\ncafe\nnaive\n東\n京\n##s\n";

std::vector<std::string> basic(std::string_view text, BasicTokenizerOptions options = {}) {
  std::vector<std::string> out;
  for (const auto& token : BasicTokenizer(options).tokenize(decode_utf8(text, "test").code_points)) {
    out.push_back(encode_utf8(token.text));
  }
  return out;
}

class WordPieceTokenizerTest : public ::testing::Test {
 protected:
  testing::TempDir dir_;  // declared first: the tokenizer reads its vocab.txt from here
  WordPieceTokenizer tokenizer_ = WordPieceTokenizer::from_file(dir_.write("vocab.txt", kClassicVocab));
};

TEST(BasicTokenizerTest, LowerCasesAndSplitsPunctuationLikeBert) {
  EXPECT_THAT(basic(" \tHeLLo!how  \n Are yoU?  "), ElementsAre("hello", "!", "how", "are", "you", "?"));
  EXPECT_THAT(basic("H\u00E9llo"), ElementsAre("hello"));
}

TEST(BasicTokenizerTest, KeepsCaseAndAccentsWhenCased) {
  const BasicTokenizerOptions cased{.lower_case = false, .strip_accents = false, .split_cjk = true};
  EXPECT_THAT(basic(" \tHeLLo!how  \n Are yoU?  ", cased), ElementsAre("HeLLo", "!", "how", "Are", "yoU", "?"));
  EXPECT_THAT(basic("Häagen", cased), ElementsAre("Häagen"));
  const BasicTokenizerOptions lower_keep_accents{.lower_case = true, .strip_accents = false, .split_cjk = true};
  EXPECT_THAT(basic(" \tHäLLo!how  \n Are yoU?  ", lower_keep_accents),
              ElementsAre("hällo", "!", "how", "are", "you", "?"));
}

TEST(BasicTokenizerTest, StripsAccentsThroughNfd) {
  // Precomposed é and a + combining ring (U+030A) both lose their marks; ß has no decomposition.
  EXPECT_THAT(basic("Café naïve A\u030Angstr\u00F6m Straße"), ElementsAre("cafe", "naive", "angstrom", "straße"));
  // Full case mapping: U+0130 (İ) lower-cases to "i" + U+0307, whose dot is then stripped.
  EXPECT_THAT(basic("\u0130stanbul"), ElementsAre("istanbul"));
}

TEST(BasicTokenizerTest, SplitsCjkIdeographsButNotKana) {
  EXPECT_THAT(basic("ah\u535A\u63A8zz"), ElementsAre("ah", "\u535A", "\u63A8", "zz"));
  EXPECT_THAT(basic("東京タワー"), ElementsAre("東", "京", "タワー"));
  // A CJK compatibility ideograph (U+F900) decomposes to its unified form (U+8C48) under NFD.
  EXPECT_THAT(basic("\uF900"), ElementsAre("\u8C48"));
}

TEST(BasicTokenizerTest, DropsControlCharactersAndSplitsOnUnicodeSpaces) {
  EXPECT_THAT(basic(std::string("a\x05"
                                "b\u200Bc",
                                7) +
                    "\u00A0d\u3000e\u2028f"),
              ElementsAre("abc", "d", "e", "f"));
  EXPECT_THAT(basic(std::string("x\0y\uFFFDz", 7)), ElementsAre("xyz"));
}

TEST(BasicTokenizerTest, SplitsUnicodeAndAsciiSymbolPunctuation) {
  EXPECT_THAT(basic("«bonjour»—$5^2"), ElementsAre("«", "bonjour", "»", "—", "$", "5", "^", "2"));
  EXPECT_THAT(basic("U.S.A."), ElementsAre("u", ".", "s", ".", "a", "."));
}

TEST(BasicTokenizerTest, CharacterClassesMatchBert) {
  for (char32_t c : {U' ', U'\t', U'\r', U'\n', U'\u00A0'})
    EXPECT_TRUE(BasicTokenizer::is_whitespace(c)) << static_cast<std::uint32_t>(c);
  for (char32_t c : {U'A', U'-'}) EXPECT_FALSE(BasicTokenizer::is_whitespace(c)) << static_cast<std::uint32_t>(c);
  EXPECT_TRUE(BasicTokenizer::is_control(U'\u0005'));
  for (char32_t c : {U'A', U' ', U'\t', U'\r'})
    EXPECT_FALSE(BasicTokenizer::is_control(c)) << static_cast<std::uint32_t>(c);
  for (char32_t c : {U'-', U'$', U'`', U'.'})
    EXPECT_TRUE(BasicTokenizer::is_punctuation(c)) << static_cast<std::uint32_t>(c);
  for (char32_t c : {U'A', U' '}) EXPECT_FALSE(BasicTokenizer::is_punctuation(c)) << static_cast<std::uint32_t>(c);
}

TEST(BasicTokenizerTest, SpansPointAtTheInputCodePoints) {
  // "Café naïve 東京": é and ï are one code point each; the spans count code points, not bytes.
  const auto tokens = BasicTokenizer().tokenize(decode_utf8("Café naïve 東京!", "t").code_points);
  ASSERT_EQ(tokens.size(), 5u);
  EXPECT_EQ(tokens[0].begin(), 0u);
  EXPECT_EQ(tokens[0].end(), 4u);
  EXPECT_EQ(tokens[1].begin(), 5u);
  EXPECT_EQ(tokens[1].end(), 10u);
  EXPECT_EQ(tokens[2].begin(), 11u);
  EXPECT_EQ(tokens[3].begin(), 12u);
  EXPECT_EQ(tokens[4].begin(), 13u);
  EXPECT_EQ(tokens[4].end(), 14u);
}

TEST_F(WordPieceTokenizerTest, GreedyLongestMatchFirstLikeBert) {
  EXPECT_THAT(tokenizer_.tokenize_to_strings("unwanted running"), ElementsAre("un", "##want", "##ed", "runn", "##ing"));
  EXPECT_THAT(tokenizer_.tokenize_to_strings("unaffable"), ElementsAre("un", "##aff", "##able"));
  EXPECT_THAT(tokenizer_.tokenize_to_strings("UNwant\u00E9d,running"),
              ElementsAre("un", "##want", "##ed", ",", "runn", "##ing"));
  // "lowest" is in the vocabulary whole: longest match first, not "low" + "##est".
  EXPECT_THAT(tokenizer_.tokenize_to_strings("lowest"), ElementsAre("lowest"));
  EXPECT_TRUE(tokenizer_.tokenize_to_strings("").empty());
}

TEST_F(WordPieceTokenizerTest, UnmatchedWordBecomesOneUnk) {
  // "X" has no piece, so the whole word, not only its tail, is [UNK].
  EXPECT_THAT(tokenizer_.tokenize_to_strings("unwantedX running"), ElementsAre("[UNK]", "runn", "##ing"));
  const auto pieces = tokenizer_.tokenize("unwantedX running");
  EXPECT_EQ(pieces[0].span, (CharSpan{0, 9}));
}

TEST_F(WordPieceTokenizerTest, OverlongWordBecomesUnk) {
  EXPECT_EQ(tokenizer_.max_input_chars_per_word(), 100u);
  // 101 characters: [UNK] without even trying; 100 "wa"s would tokenize if it were allowed.
  std::string long_word;
  for (int i = 0; i < 51; ++i) long_word += "wa";
  EXPECT_THAT(tokenizer_.tokenize_to_strings(long_word), ElementsAre("[UNK]"));
  std::string ok_word = "wa";
  EXPECT_THAT(tokenizer_.tokenize_to_strings(ok_word), ElementsAre("wa"));
}

TEST_F(WordPieceTokenizerTest, InfersLowerCasingFromTheVocabulary) {
  EXPECT_TRUE(tokenizer_.basic_options().lower_case);
  EXPECT_TRUE(tokenizer_.basic_options().strip_accents);
  testing::TempDir dir;
  const auto cased = WordPieceTokenizer::from_file(dir.write("vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\nHello\n##s\n"));
  EXPECT_FALSE(cased.basic_options().lower_case);
  EXPECT_FALSE(cased.basic_options().strip_accents);
  EXPECT_THAT(cased.tokenize_to_strings("Hellos hello"), ElementsAre("Hello", "##s", "[UNK]"));
}

TEST_F(WordPieceTokenizerTest, PieceSpansAreCodePointsOfTheInput) {
  const auto pieces = tokenizer_.tokenize("Café naïve 東京s");
  ASSERT_EQ(pieces.size(), 5u);
  EXPECT_EQ(tokenizer_.vocab().token(pieces[0].id), "cafe");
  EXPECT_EQ(pieces[0].span, (CharSpan{0, 4}));
  EXPECT_EQ(pieces[1].span, (CharSpan{5, 10}));
  EXPECT_EQ(pieces[2].span, (CharSpan{11, 12}));
  EXPECT_EQ(pieces[3].span, (CharSpan{12, 13}));
  // "s" after 京 is a word of its own (CJK split), not a continuation.
  EXPECT_EQ(tokenizer_.vocab().token(pieces[4].id), "[UNK]");
  const auto split = tokenizer_.tokenize("unaffable");
  EXPECT_EQ(split[0].span, (CharSpan{0, 2}));
  EXPECT_EQ(split[1].span, (CharSpan{2, 5}));
  EXPECT_EQ(split[2].span, (CharSpan{5, 9}));
}

TEST_F(WordPieceTokenizerTest, InvalidUtf8IsAnErrorWithTheByteOffset) {
  for (const std::string& bad : {std::string("ab\xC3"), std::string("ab\xC0\xAF"), std::string("ab\xED\xA0\x80"),
                                 std::string("ab\xF4\x90\x80\x80"), std::string("ab\x80")}) {
    try {
      tokenizer_.tokenize(bad, "question 7");
      ADD_FAILURE() << "accepted invalid UTF-8";
    } catch (const TextFormatError& e) {
      EXPECT_THAT(e.what(), HasSubstr("question 7"));
      EXPECT_THAT(e.what(), HasSubstr("byte offset 2"));
    }
  }
}

TEST_F(WordPieceTokenizerTest, EncodesASequenceWithSpecialsAndPadding) {
  const Encoding e = tokenizer_.encode("unwanted running", 8);
  const auto& v = tokenizer_.vocab();
  EXPECT_THAT(e.input_ids, ElementsAre(v.cls_id(), 9, 6, 7, 10, 11, v.sep_id(), v.pad_id()));
  EXPECT_THAT(e.attention_mask, ElementsAre(1, 1, 1, 1, 1, 1, 1, 0));
  EXPECT_THAT(e.token_type_ids, ElementsAre(0, 0, 0, 0, 0, 0, 0, 0));
  EXPECT_THAT(e.sequence_ids, ElementsAre(-1, 0, 0, 0, 0, 0, -1, -1));
  EXPECT_EQ(e.length, 7u);
  EXPECT_FALSE(e.truncated);

  const Encoding cut = tokenizer_.encode("unwanted running", 4, false);
  EXPECT_THAT(cut.input_ids, ElementsAre(v.cls_id(), 9, 6, v.sep_id()));
  EXPECT_TRUE(cut.truncated);
  EXPECT_THROW(tokenizer_.encode("x", 1), std::invalid_argument);
}

TEST_F(WordPieceTokenizerTest, EncodesAPairWithSegmentIds) {
  const Encoding e = tokenizer_.encode_pair("how are you", "hello!", 10);
  const auto& v = tokenizer_.vocab();
  EXPECT_THAT(e.input_ids, ElementsAre(v.cls_id(), 22, 23, 24, v.sep_id(), 21, 19, v.sep_id(), v.pad_id(), v.pad_id()));
  EXPECT_THAT(e.token_type_ids, ElementsAre(0, 0, 0, 0, 0, 1, 1, 1, 0, 0));
  EXPECT_THAT(e.sequence_ids, ElementsAre(-1, 0, 0, 0, -1, 1, 1, -1, -1, -1));
  EXPECT_EQ(e.offsets[6], (CharSpan{5, 6}));
  // Longest first: 3 + 2 tokens into 7 - 3 = 4 slots drops one from the longer first sequence.
  const Encoding cut = tokenizer_.encode_pair("how are you", "hello!", 7, false);
  EXPECT_THAT(cut.input_ids, ElementsAre(v.cls_id(), 22, 23, v.sep_id(), 21, 19, v.sep_id()));
  EXPECT_TRUE(cut.truncated);
}

TEST_F(WordPieceTokenizerTest, EncodesPreSplitWordsWithWordIds) {
  const std::vector<std::string> words{"Unaffable", "U.S.", "\x05", "running"};
  const Encoding e = tokenizer_.encode_words(words, 16, false);
  EXPECT_THAT(tokenizer_.vocab().token(e.input_ids[1]), "un");
  // The control-character word yields nothing, so word 2 has no position.
  EXPECT_THAT(e.word_ids, ElementsAre(-1, 0, 0, 0, 1, 1, 1, 1, 3, 3, -1));
  const Encoding cut = tokenizer_.encode_words(words, 4);
  EXPECT_THAT(cut.word_ids, ElementsAre(-1, 0, 0, -1));
  EXPECT_TRUE(cut.truncated);
}

TEST(WindowSpansTest, OverlapByStrideAndEndAtTheLength) {
  using Spans = std::vector<std::pair<std::size_t, std::size_t>>;
  EXPECT_EQ(window_spans(10, 4, 1), (Spans{{0, 4}, {3, 7}, {6, 10}}));
  EXPECT_EQ(window_spans(10, 4, 2), (Spans{{0, 4}, {2, 6}, {4, 8}, {6, 10}}));
  EXPECT_EQ(window_spans(3, 4, 2), (Spans{{0, 3}}));
  EXPECT_EQ(window_spans(0, 4, 2), (Spans{{0, 0}}));
  EXPECT_THROW(window_spans(10, 4, 4), std::invalid_argument);
  EXPECT_THROW(window_spans(10, 0, 0), std::invalid_argument);
}

TEST_F(WordPieceTokenizerTest, WindowsOverALongSecondSequence) {
  // Question "how" (1 token) + 3 specials leaves 3 context tokens per window of 7.
  const WindowOptions options{.max_length = 7, .stride = 1, .max_first_length = 64, .pad = true};
  const auto windows = tokenizer_.encode_pair_windows("how", "unwanted running lowest", options);
  ASSERT_EQ(windows.size(), 3u);  // 6 pieces: [0,3) [2,5) [4,6)
  const auto& v = tokenizer_.vocab();
  EXPECT_THAT(windows[0].input_ids, ElementsAre(v.cls_id(), 22, v.sep_id(), 9, 6, 7, v.sep_id()));
  EXPECT_THAT(windows[1].input_ids, ElementsAre(v.cls_id(), 22, v.sep_id(), 7, 10, 11, v.sep_id()));
  EXPECT_THAT(windows[2].input_ids, ElementsAre(v.cls_id(), 22, v.sep_id(), 11, 14, v.sep_id(), v.pad_id()));
  EXPECT_EQ(windows[2].offsets[4], (CharSpan{17, 23}));
  EXPECT_THAT(windows[2].token_type_ids, ElementsAre(0, 0, 0, 1, 1, 1, 0));
  // The question does not fit: a clear configuration error, not a crash.
  const WindowOptions tiny{.max_length = 4, .stride = 0, .max_first_length = 64, .pad = true};
  EXPECT_THROW(tokenizer_.encode_pair_windows("how are", "hello", tiny), std::invalid_argument);
}

TEST(VocabTest, IdsAreLineNumbersAndSpecialsAreRequired) {
  const Vocab vocab = Vocab::parse("[PAD]\r\n[UNK]\r\n[CLS]\r\n[SEP]\r\n\r\nhello\r\n##s", "v.txt");
  EXPECT_EQ(vocab.size(), 7);
  EXPECT_EQ(vocab.find("hello"), 5);
  EXPECT_EQ(vocab.find("##s"), 6);
  EXPECT_EQ(vocab.unk_id(), 1);
  EXPECT_EQ(vocab.max_piece_code_points(), 5u);
  EXPECT_FALSE(vocab.find("").has_value());
  try {
    Vocab::parse("[PAD]\n[UNK]\nhello\n", "my/vocab.txt");
    ADD_FAILURE();
  } catch (const TextFormatError& e) {
    EXPECT_THAT(e.what(), HasSubstr("my/vocab.txt"));
    EXPECT_THAT(e.what(), HasSubstr("[CLS], [SEP]"));
  }
  try {
    Vocab::parse("[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\nhello\n", "v.txt");
    ADD_FAILURE();
  } catch (const TextFormatError& e) {
    EXPECT_THAT(e.what(), HasSubstr("line 6"));
    EXPECT_THAT(e.what(), HasSubstr("line 5"));
  }
  try {
    Vocab::parse("[PAD]\n[UNK]\n[CLS]\n[SEP]\nh\xFFi\n", "v.txt");
    ADD_FAILURE();
  } catch (const TextFormatError& e) {
    EXPECT_THAT(e.what(), HasSubstr("line 5"));
    EXPECT_THAT(e.what(), HasSubstr("byte offset 25"));
  }
  EXPECT_THROW(Vocab::parse("", "v.txt"), TextFormatError);
  EXPECT_THROW(Vocab::read("/nonexistent/vocab.txt"), TextFormatError);
}

}  // namespace
}  // namespace jetchar::loaders::text
