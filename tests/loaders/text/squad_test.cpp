#include "loaders/text/squad.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "loaders/text/text_error.h"
#include "tests/support/temp_dir.h"

namespace jetchar::loaders::text {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

// "Café naïve 東京": é and ï are 2 bytes, 東 and 京 3 bytes each, so byte and code-point offsets
// differ from the 5th character on. 東京 starts at code point 11 but byte 13.
const std::string kContext = "Café naïve 東京 has a tower.";

json squad_file(json answers) {
  return json{
      {"version", "1.1"},
      {"data",
       json::array({json{
           {"title", "Tōkyō"},
           {"paragraphs",
            json::array({json{
                {"context", kContext},
                {"qas", json::array({json{{"id", "q-1"}, {"question", "Where?"}, {"answers", answers}}})}}})}}})}};
}

std::string squad_error_of(const json& file) {
  try {
    parse_squad(file.dump(), "dev-v1.1.json");
  } catch (const TextFormatError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted " << file.dump();
  return {};
}

TEST(SquadTest, ParsesArticlesParagraphsAndCodePointAnswers) {
  json file = squad_file(
      json::array({json{{"text", "東京"}, {"answer_start", 11}}, json{{"text", "naïve 東京"}, {"answer_start", 5}}}));
  file["data"].push_back(json{
      {"title", "Second"},
      {"paragraphs",
       json::array({json{
           {"context", "Plain text."},
           {"qas", json::array({json{{"id", "q-2"},
                                     {"question", "What?"},
                                     {"answers", json::array({json{{"text", "text"}, {"answer_start", 6}}})}}})}}})}});
  const SquadData data = parse_squad(file.dump(), "train.json");
  EXPECT_EQ(data.version, "1.1");
  EXPECT_EQ(data.articles, 2u);
  ASSERT_EQ(data.paragraphs.size(), 2u);
  EXPECT_EQ(data.paragraphs[0].title, "Tōkyō");
  EXPECT_EQ(data.paragraphs[0].context, kContext);
  EXPECT_EQ(data.paragraphs[0].context_code_points, 26);
  ASSERT_EQ(data.questions.size(), 2u);
  const SquadQuestion& q = data.questions[0];
  EXPECT_EQ(q.id, "q-1");
  EXPECT_EQ(q.question, "Where?");
  EXPECT_EQ(q.paragraph, 0u);
  ASSERT_EQ(q.answers.size(), 2u);
  EXPECT_EQ(q.answers[0].start, 11);
  EXPECT_EQ(q.answers[0].length, 2);
  EXPECT_EQ(q.answers[1].length, 8);
  EXPECT_EQ(data.questions[1].paragraph, 1u);
}

TEST(SquadTest, ByteOffsetsInsteadOfCodePointsAreRejected) {
  // 13 is where 東京 starts in bytes; code point 13 is " has".
  const std::string message = squad_error_of(squad_file(json::array({json{{"text", "東京"}, {"answer_start", 13}}})));
  EXPECT_THAT(message, HasSubstr("dev-v1.1.json"));
  EXPECT_THAT(message, HasSubstr("question id q-1"));
  EXPECT_THAT(message, HasSubstr("does not match the context at code point 13"));
  EXPECT_THAT(message, HasSubstr("(\" h\")"));
}

TEST(SquadTest, OffsetsOutsideTheContextAreRejected) {
  EXPECT_THAT(squad_error_of(squad_file(json::array({json{{"text", "tower."}, {"answer_start", 21}}}))),
              HasSubstr("answer_start 21 + 6 code points of \"tower.\" is outside the context (26 code points)"));
  EXPECT_THAT(squad_error_of(squad_file(json::array({json{{"text", "x"}, {"answer_start", -1}}}))),
              HasSubstr("outside the context"));
  EXPECT_THAT(squad_error_of(squad_file(json::array({json{{"text", "x"}, {"answer_start", 18446744073709551615ull}}}))),
              HasSubstr("outside the context"));
  // At the end exactly is fine for an empty answer; the last character is fine too.
  EXPECT_NO_THROW(parse_squad(squad_file(json::array({json{{"text", "."}, {"answer_start", 25}}})).dump(), "f"));
}

TEST(SquadTest, StructuralErrorsNameThePath) {
  EXPECT_THAT(squad_error_of(squad_file(json::array())),
              HasSubstr("data[0].paragraphs[0].qas[0] (question id q-1): no answers"));
  json impossible = squad_file(json::array());
  impossible["data"][0]["paragraphs"][0]["qas"][0]["is_impossible"] = true;
  EXPECT_TRUE(parse_squad(impossible.dump(), "v2.json").questions[0].is_impossible);

  EXPECT_THAT(squad_error_of(squad_file(json::array({json{{"text", "東京"}, {"answer_start", "11"}}}))),
              HasSubstr("answers[0]: \"answer_start\" is a string, expected an integer"));
  EXPECT_THAT(squad_error_of(squad_file(json::array({json{{"text", "東京"}, {"answer_start", 11.5}}}))),
              HasSubstr("is a number, expected an integer"));
  json no_context = squad_file(json::array());
  no_context["data"][0]["paragraphs"][0].erase("context");
  EXPECT_THAT(squad_error_of(no_context), HasSubstr("data[0].paragraphs[0]: missing \"context\""));
  EXPECT_THAT(squad_error_of(json{{"version", "1.1"}}), HasSubstr("top level: missing \"data\""));
  EXPECT_THAT(squad_error_of(json::array()), HasSubstr("top level: is an array, expected an object"));
}

TEST(SquadTest, SyntaxErrorsAndInvalidUtf8GiveTheByteOffset) {
  try {
    parse_squad("{\"data\": [}", "broken.json");
    ADD_FAILURE();
  } catch (const TextFormatError& e) {
    EXPECT_THAT(e.what(), HasSubstr("broken.json: not valid JSON at byte offset 10"));
  }
  try {
    parse_squad("{\"data\": [\"ab\xC3\x28\"]}", "bad-utf8.json");
    ADD_FAILURE();
  } catch (const TextFormatError& e) {
    EXPECT_THAT(e.what(), HasSubstr("bad-utf8.json: invalid UTF-8 at byte offset 13 (bytes C3 28"));
  }
}

TEST(SquadTest, NumbersTooLargeForADoubleAreAnErrorNotACrash) {
  // nlohmann reports these with out_of_range, not parse_error.
  try {
    parse_squad(R"({"data": [], "x": 999e999999998})", "huge.json");
    ADD_FAILURE();
  } catch (const TextFormatError& e) {
    EXPECT_THAT(e.what(), HasSubstr("huge.json: not valid JSON"));
    EXPECT_THAT(e.what(), HasSubstr("number overflow"));
  }
}

TEST(SquadTest, ReadsFilesAndNamesMissingOnes) {
  testing::TempDir dir;
  const auto path =
      dir.write("train-v1.1.json", squad_file(json::array({json{{"text", "東京"}, {"answer_start", 11}}})).dump());
  EXPECT_EQ(read_squad(path).questions.size(), 1u);
  EXPECT_THROW(read_squad(dir.path() / "absent.json"), TextFormatError);
}

}  // namespace
}  // namespace jetchar::loaders::text
