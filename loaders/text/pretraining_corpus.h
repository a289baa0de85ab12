// A pretraining corpus in the plain-text form BERT's create_pretraining_data.py reads
// (google-research/bert; ELECTRA's build_pretraining_dataset.py reads the same): UTF-8 text, one
// sentence per line, documents separated by blank lines. Lines are stripped of surrounding white
// space, as that script strips them, and a line of white space only is blank. "\r\n" line ends
// are accepted.
//
// Bad input is refused with TextFormatError naming the file and line: ill-formed UTF-8, control
// bytes other than tab, carriage return and form feed (a NUL or an ESC means the file is not text:
// a binary file given by mistake), and a corpus without a single sentence.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace jetchar::loaders::text {

struct CorpusSentence {
  std::string text;  ///< stripped, never empty
  std::size_t line;  ///< 1-based line in the file
};

struct PretrainingCorpus {
  /// Documents in file order, each a non-empty list of sentences.
  std::vector<std::vector<CorpusSentence>> documents;
  std::size_t sentences = 0;
};

/// Parses a corpus; `source` names it in errors.
PretrainingCorpus parse_pretraining_corpus(std::string_view content, std::string_view source);

/// Reads and parses `file`; a file that cannot be read is a TextFormatError naming it and why.
PretrainingCorpus read_pretraining_corpus(const std::filesystem::path& file);

}  // namespace jetchar::loaders::text
