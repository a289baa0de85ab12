#include "loaders/text/vocab.h"

#include <unicode/uchar.h>

#include <fmt/format.h>

#include "loaders/text/text_error.h"
#include "loaders/text/utf8.h"
#include "sysfs/errno_name.h"
#include "sysfs/whole_file.h"

namespace jetchar::loaders::text {
namespace {

bool is_bracketed_special(std::string_view token) {
  return token.size() >= 2 && token.front() == '[' && token.back() == ']';
}

}  // namespace

Vocab Vocab::read(const std::filesystem::path& path) {
  const std::string content = sysfs::read_whole_file(path, [&](const sysfs::IoError& e) {
    return TextFormatError(
        fmt::format("{}: cannot read the vocabulary file: {}", path.string(), sysfs::errno_text(e.error_number())));
  });
  return parse(content, path.string());
}

Vocab Vocab::parse(std::string_view content, std::string_view source) {
  Vocab vocab;
  vocab.source_ = std::string(source);
  std::size_t line_start = 0;
  std::size_t line_number = 0;
  while (line_start < content.size()) {
    ++line_number;
    std::size_t line_end = content.find('\n', line_start);
    const std::size_t next = line_end == std::string_view::npos ? content.size() : line_end + 1;
    if (line_end == std::string_view::npos) line_end = content.size();
    std::string_view token = content.substr(line_start, line_end - line_start);
    if (!token.empty() && token.back() == '\r') token.remove_suffix(1);
    if (const auto bad = find_invalid_utf8(token)) {
      throw TextFormatError(
          fmt::format("{}: line {}: invalid UTF-8 at byte offset {}", source, line_number, line_start + *bad));
    }
    const auto id = static_cast<std::int64_t>(vocab.tokens_.size());
    // An empty line keeps its id (ids are line numbers) but can never match a piece.
    const auto [it, inserted] =
        token.empty() ? std::pair{vocab.ids_.end(), true} : vocab.ids_.emplace(std::string(token), id);
    if (!inserted) {
      throw TextFormatError(
          fmt::format("{}: line {}: token '{}' already appears on line {}; "
                      "ids are line numbers, so every token must be unique",
                      source, line_number, token, it->second + 1));
    }
    vocab.tokens_.emplace_back(token);
    std::string_view piece = token;
    if (piece.starts_with("##")) piece.remove_prefix(2);
    vocab.max_piece_code_points_ = std::max(vocab.max_piece_code_points_, count_code_points(piece));
    if (!vocab.has_upper_case_ && !is_bracketed_special(token)) {
      for (const char32_t c : decode_utf8(token, source).code_points) {
        if (u_isupper(static_cast<UChar32>(c))) {
          vocab.has_upper_case_ = true;
          break;
        }
      }
    }
    line_start = next;
  }
  if (vocab.tokens_.empty()) throw TextFormatError(fmt::format("{}: the vocabulary is empty", source));
  std::vector<std::string> missing;
  auto special = [&](std::string_view name, std::int64_t& id) {
    if (const auto found = vocab.find(name)) {
      id = *found;
    } else {
      missing.emplace_back(name);
    }
  };
  special("[UNK]", vocab.unk_id_);
  special("[CLS]", vocab.cls_id_);
  special("[SEP]", vocab.sep_id_);
  special("[PAD]", vocab.pad_id_);
  if (!missing.empty()) {
    throw TextFormatError(
        fmt::format("{}: no {} token in the vocabulary ({} lines); a BERT "
                    "vocabulary needs [UNK], [CLS], [SEP] and [PAD]",
                    source, fmt::join(missing, ", "), vocab.tokens_.size()));
  }
  return vocab;
}

std::optional<std::int64_t> Vocab::find(std::string_view token) const {
  const auto it = ids_.find(token);
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

}  // namespace jetchar::loaders::text
