#include "loaders/text/pretraining_corpus.h"

#include <fmt/format.h>

#include "loaders/text/text_error.h"
#include "loaders/text/utf8.h"
#include "sysfs/errno_name.h"
#include "sysfs/whole_file.h"

namespace jetchar::loaders::text {
namespace {

// White space create_pretraining_data.py's str.strip() removes that a line can hold (the line
// break itself is already cut); Unicode spaces stay inside the sentence and the tokenizer drops them.
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

std::string_view strip(std::string_view line) {
  while (!line.empty() && is_space(line.front())) line.remove_prefix(1);
  while (!line.empty() && is_space(line.back())) line.remove_suffix(1);
  return line;
}

// Control bytes no text file holds. Tab, CR, LF, VT and FF are layout; a NUL, an ESC or any other
// C0 control (and DEL) mean the file is binary or not what was meant.
bool is_binary_byte(unsigned char c) {
  return (c < 0x20 && c != '\t' && c != '\r' && c != '\n' && c != '\f' && c != '\v') || c == 0x7f;
}

}  // namespace

PretrainingCorpus parse_pretraining_corpus(std::string_view content, std::string_view source) {
  PretrainingCorpus corpus;
  std::vector<CorpusSentence> document;
  auto finish_document = [&] {
    if (!document.empty()) corpus.documents.push_back(std::move(document));
    document.clear();
  };
  std::size_t line_number = 0;
  std::size_t line_start = 0;
  while (line_start < content.size()) {
    ++line_number;
    const std::size_t newline = content.find('\n', line_start);
    const std::size_t line_end = newline == std::string_view::npos ? content.size() : newline;
    const std::string_view line = content.substr(line_start, line_end - line_start);
    for (std::size_t i = 0; i < line.size(); ++i) {
      const auto byte = static_cast<unsigned char>(line[i]);
      if (is_binary_byte(byte)) {
        throw TextFormatError(
            fmt::format("{}:{}: control byte 0x{:02x} at byte offset {}: not plain text; a corpus is UTF-8 text, one "
                        "sentence per line, documents separated by blank lines",
                        source, line_number, byte, line_start + i));
      }
    }
    if (const auto bad = find_invalid_utf8(line)) {
      throw TextFormatError(fmt::format("{}:{}: ill-formed UTF-8 at byte offset {}; a corpus is UTF-8 text", source,
                                        line_number, line_start + *bad));
    }
    const std::string_view sentence = strip(line);
    if (sentence.empty()) {
      finish_document();
    } else {
      document.push_back({std::string(sentence), line_number});
      ++corpus.sentences;
    }
    line_start = line_end + 1;
  }
  finish_document();
  if (corpus.sentences == 0) {
    throw TextFormatError(
        fmt::format("{}: no sentences ({} lines, all blank); a corpus is UTF-8 text, one sentence per line, documents "
                    "separated by blank lines",
                    source, line_number));
  }
  return corpus;
}

PretrainingCorpus read_pretraining_corpus(const std::filesystem::path& file) {
  const std::string content = sysfs::read_whole_file(file, [&](const sysfs::IoError& e) {
    return TextFormatError(
        fmt::format("{}: cannot read the corpus: {}", file.string(), sysfs::errno_text(e.error_number())));
  });
  return parse_pretraining_corpus(content, file.string());
}

}  // namespace jetchar::loaders::text
