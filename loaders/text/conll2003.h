// CoNLL-2003 NER files: one token per line "word POS chunk NER", a blank line between sentences,
// "-DOCSTART- -X- -X- O" before each document. The original eng.train/testa/testb tag with IOB1
// (I-X starts an entity unless it directly follows another entity of the same type); the common
// train/valid/test.txt mirror uses IOB2 (B-X starts every entity). Sentences come out in IOB2
// with HF's label ids whatever the file used.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jetchar::loaders::text {

/// The 9 NER labels in HF's id order (O=0, B-PER=1, ... I-MISC=8).
inline constexpr std::array<std::string_view, 9> kConllNerLabels = {"O",     "B-PER", "I-PER",  "B-ORG", "I-ORG",
                                                                    "B-LOC", "I-LOC", "B-MISC", "I-MISC"};

enum class TagScheme { kIob1, kIob2 };

std::string_view to_string(TagScheme scheme);

/// The id of an NER label, or nullopt when it is not one of kConllNerLabels.
std::optional<std::int8_t> conll_ner_label_id(std::string_view label);

struct ConllSentence {
  std::vector<std::string> words;
  std::vector<std::string> pos;
  std::vector<std::string> chunk;
  /// NER label ids (kConllNerLabels), IOB2.
  std::vector<std::int8_t> ner;
  /// 1-based line of the sentence's first token.
  std::size_t line = 0;
  /// 0-based index of the document it belongs to (documents start at -DOCSTART- lines; text
  /// before the first one is document 0 too).
  std::size_t document = 0;
};

struct ConllCorpus {
  std::vector<ConllSentence> sentences;
  /// Number of -DOCSTART- lines.
  std::size_t documents = 0;
  std::size_t tokens = 0;
  /// The scheme the file uses (detected unless declared): IOB1 when some I-X begins an entity.
  TagScheme scheme = TagScheme::kIob2;
  /// I-X tags rewritten to B-X to make the labels IOB2.
  std::size_t converted_tags = 0;
};

/// Parses a CoNLL-2003 text. `declared` forces a scheme: with kIob2, an I-X that begins an entity
/// is an error (naming its line). Throws TextFormatError naming `source` and the line for a line
/// without exactly 4 columns, an unknown NER tag, or invalid UTF-8 (with its byte offset).
ConllCorpus parse_conll2003(std::string_view text, std::string_view source,
                            std::optional<TagScheme> declared = std::nullopt);

/// Reads and parses `file` (TextFormatError if it cannot be read).
ConllCorpus read_conll2003(const std::filesystem::path& file, std::optional<TagScheme> declared = std::nullopt);

}  // namespace jetchar::loaders::text
