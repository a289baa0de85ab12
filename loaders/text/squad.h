// SQuAD v1.1 JSON: {"version", "data": [{"title", "paragraphs": [{"context", "qas": [{"id",
// "question", "answers": [{"text", "answer_start"}]}]}]}]}. answer_start counts Unicode code points
// of the context, not UTF-8 bytes; every answer is checked against the context in code points.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace jetchar::loaders::text {

struct SquadAnswer {
  std::string text;
  /// Offset and length in code points of the paragraph's context.
  std::int64_t start = 0;
  std::int64_t length = 0;
};

struct SquadQuestion {
  std::string id;
  std::string question;
  /// One in the training set, several reference answers in the dev set; none for a SQuAD v2
  /// question marked is_impossible.
  std::vector<SquadAnswer> answers;
  bool is_impossible = false;
  /// Index into SquadData::paragraphs.
  std::size_t paragraph = 0;
};

struct SquadParagraph {
  std::string title;
  std::string context;
  /// Length of `context` in code points.
  std::int64_t context_code_points = 0;
};

struct SquadData {
  std::string version;
  std::size_t articles = 0;
  std::vector<SquadParagraph> paragraphs;
  std::vector<SquadQuestion> questions;
};

/// Parses SQuAD JSON. Throws TextFormatError naming `source` and where: the byte offset of a JSON
/// syntax error or invalid UTF-8; the JSON path and question id of a missing or mistyped field,
/// a question without answers (unless is_impossible), or an answer whose code-point span lies
/// outside the context or does not spell the answer text.
SquadData parse_squad(std::string_view json, std::string_view source);

/// Reads and parses `file` (TextFormatError if it cannot be read).
SquadData read_squad(const std::filesystem::path& file);

}  // namespace jetchar::loaders::text
