#include "loaders/text/conll2003.h"

#include <fmt/format.h>

#include "loaders/text/text_error.h"
#include "loaders/text/utf8.h"
#include "sysfs/errno_name.h"
#include "sysfs/whole_file.h"

namespace jetchar::loaders::text {
namespace {

/// Entity type of a label id (0 for O; PER=1, ORG=2, LOC=3, MISC=4) and whether it is an I- tag.
int entity_type(std::int8_t id) { return (id + 1) / 2; }
bool is_inside(std::int8_t id) { return id != 0 && id % 2 == 0; }

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

}  // namespace

std::string_view to_string(TagScheme scheme) { return scheme == TagScheme::kIob1 ? "IOB1" : "IOB2"; }

std::optional<std::int8_t> conll_ner_label_id(std::string_view label) {
  for (std::size_t i = 0; i < kConllNerLabels.size(); ++i) {
    if (kConllNerLabels[i] == label) return static_cast<std::int8_t>(i);
  }
  return std::nullopt;
}

ConllCorpus parse_conll2003(std::string_view text, std::string_view source, std::optional<TagScheme> declared) {
  ConllCorpus corpus;
  ConllSentence sentence;
  // Tag and line of each token of the current sentence before the IOB2 rewrite.
  std::vector<std::size_t> token_lines;
  bool saw_iob1_start = false;
  std::size_t document = 0;

  auto finish_sentence = [&] {
    if (sentence.words.empty()) return;
    for (std::size_t i = 0; i < sentence.ner.size(); ++i) {
      const std::int8_t id = sentence.ner[i];
      if (!is_inside(id)) continue;
      const bool continues = i > 0 && sentence.ner[i - 1] != 0 && entity_type(sentence.ner[i - 1]) == entity_type(id);
      if (continues) continue;
      // An I-X that begins an entity: IOB1's convention. IOB2 would have B-X here.
      if (declared == TagScheme::kIob2) {
        throw TextFormatError(
            fmt::format("{}: line {}: tag {} begins an entity, which IOB2 does not allow (IOB2 starts every "
                        "entity with B-); the file looks like IOB1",
                        source, token_lines[i], kConllNerLabels[static_cast<std::size_t>(id)]));
      }
      saw_iob1_start = true;
      sentence.ner[i] = static_cast<std::int8_t>(id - 1);  // I-X -> B-X
      ++corpus.converted_tags;
    }
    corpus.tokens += sentence.words.size();
    sentence.document = document;
    corpus.sentences.push_back(std::move(sentence));
    sentence = ConllSentence{};
    token_lines.clear();
  };

  std::size_t line_start = 0;
  std::size_t line_number = 0;
  while (line_start < text.size()) {
    ++line_number;
    std::size_t line_end = text.find('\n', line_start);
    const std::size_t next = line_end == std::string_view::npos ? text.size() : line_end + 1;
    if (line_end == std::string_view::npos) line_end = text.size();
    std::string_view line = text.substr(line_start, line_end - line_start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (const auto bad = find_invalid_utf8(line)) {
      throw TextFormatError(
          fmt::format("{}: line {}: invalid UTF-8 at byte offset {}", source, line_number, line_start + *bad));
    }
    const std::vector<std::string_view> fields = split_fields(line);
    line_start = next;
    if (fields.empty()) {
      finish_sentence();
      continue;
    }
    if (fields.front().starts_with("-DOCSTART-")) {
      finish_sentence();
      if (corpus.documents > 0 || !corpus.sentences.empty()) ++document;
      ++corpus.documents;
      continue;
    }
    if (fields.size() != 4) {
      throw TextFormatError(fmt::format("{}: line {}: expected 4 columns (word POS chunk NER), found {}: '{}'", source,
                                        line_number, fields.size(), line));
    }
    const auto label = conll_ner_label_id(fields[3]);
    if (!label) {
      throw TextFormatError(fmt::format("{}: line {}: NER tag '{}' is not one of {}", source, line_number, fields[3],
                                        fmt::join(kConllNerLabels, ", ")));
    }
    if (sentence.words.empty()) sentence.line = line_number;
    sentence.words.emplace_back(fields[0]);
    sentence.pos.emplace_back(fields[1]);
    sentence.chunk.emplace_back(fields[2]);
    sentence.ner.push_back(*label);
    token_lines.push_back(line_number);
  }
  finish_sentence();
  corpus.scheme = declared.value_or(saw_iob1_start ? TagScheme::kIob1 : TagScheme::kIob2);
  return corpus;
}

ConllCorpus read_conll2003(const std::filesystem::path& file, std::optional<TagScheme> declared) {
  const std::string content = sysfs::read_whole_file(file, [&](const sysfs::IoError& e) {
    return TextFormatError(
        fmt::format("{}: cannot read the CoNLL-2003 file: {}", file.string(), sysfs::errno_text(e.error_number())));
  });
  return parse_conll2003(content, file.string(), declared);
}

}  // namespace jetchar::loaders::text
