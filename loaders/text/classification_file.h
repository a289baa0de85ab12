// Sequence-classification examples from the files people fine-tune on: GLUE's TSV files (a header
// row, tab-separated, no quoting: GLUE's loaders read them with csv quotechar=None; SST-2
// `sentence  label`, MRPC `Quality  #1 ID  #2 ID  #1 String  #2 String`, QNLI `index question
// sentence label`, MNLI `... sentence1 sentence2 ... gold_label`), CSV with a header row (RFC 4180
// quoting), and JSON Lines as Hugging Face datasets' to_json() writes them (one object per line:
// {"sentence": "...", "label": 1, "idx": 0}).
//
// Columns by name: the text is the first of text, sentence1, #1 String, question, premise,
// sentence; the optional pair the first other one of text_pair, sentence2, #2 String, sentence,
// hypothesis; the label the first of label, gold_label, Quality. A label is kept as its text (a
// JSON number as its decimal digits).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jetchar::loaders::text {

enum class ClassificationFormat { kTsv, kCsv, kJsonl };

struct ClassificationExample {
  std::string text;
  std::optional<std::string> text_pair;
  std::string label;
  std::size_t line = 0;  ///< 1-based line of the file where the example starts
};

struct ClassificationFile {
  std::vector<ClassificationExample> examples;
  /// The columns (fields) used, for messages and reports.
  std::string text_column;
  std::optional<std::string> pair_column;
  std::string label_column;
};

/// By extension: .tsv, .csv, .jsonl or .json (JSON Lines). Throws std::invalid_argument naming
/// the file and the valid extensions.
ClassificationFormat classification_format(const std::filesystem::path& file);

/// Parses `content`. Throws TextFormatError naming `source` and the line for a missing header or
/// column, a row with too few fields, an unterminated quote, a JSON line that is not an object
/// with string text fields and a string or integer label, or invalid UTF-8 in a text.
ClassificationFile parse_classification(std::string_view content, ClassificationFormat format, std::string_view source);

/// Reads and parses `file` in the format its extension names.
ClassificationFile read_classification(const std::filesystem::path& file);

}  // namespace jetchar::loaders::text
