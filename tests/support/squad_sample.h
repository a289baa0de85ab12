// A small SQuAD v1.1 file (the dev-v1.1.json layout: version, data → paragraphs → context and qas
// with answer text and byte offset) that the CLI and experiments tests train on and answer from,
// and a WordPiece vocabulary that holds every word of it.
//
// One context of 14 pieces, "The red fox jumps over the lazy dog near the old river bank.", and up
// to three questions on it: q1 "what jumps?" (red fox), q2 "who sleeps?" (lazy dog), q3 "where
// sleeps?" (old river bank). With 16 positions and questions of 3 pieces a window holds 10 context
// pieces and windows share 4: every question has two windows ([0, 10) and [6, 14)); "red fox" lies
// wholly in the first only, "old river bank" in the second only, "lazy dog" in both.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace jetchar::testing {

/// The first `questions` (1 to 3) questions on the context.
inline std::string squad_sample_json(int questions = 2) {
  using nlohmann::json;
  if (questions < 1 || questions > 3) {
    throw std::invalid_argument("squad_sample_json: questions " + std::to_string(questions) + " is not 1, 2 or 3");
  }
  const std::string context = "The red fox jumps over the lazy dog near the old river bank.";
  auto answer = [&](const std::string& text) {
    return json::array({json{{"text", text}, {"answer_start", context.find(text)}}});
  };
  const json all = json::array({
      json{{"id", "q1"}, {"question", "what jumps?"}, {"answers", answer("red fox")}},
      json{{"id", "q2"}, {"question", "who sleeps?"}, {"answers", answer("lazy dog")}},
      json{{"id", "q3"}, {"question", "where sleeps?"}, {"answers", answer("old river bank")}},
  });
  json qas = json::array();
  for (int i = 0; i < questions; ++i) qas.push_back(all[static_cast<std::size_t>(i)]);
  return json{
      {"version", "1.1"},
      {"data",
       json::array({json{{"title", "t"}, {"paragraphs", json::array({json{{"context", context}, {"qas", qas}}})}}})}}
      .dump();
}

/// A vocabulary (one piece a line, BERT's special tokens first) with every word of the three
/// questions and the context.
inline constexpr const char* kSquadSampleVocab =
    "[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\nred\nfox\njumps\nover\nlazy\ndog\nnear\nold\nriver\nbank\nwhat\nwho\n"
    "where\nsleeps\n?\n.\n";

}  // namespace jetchar::testing
