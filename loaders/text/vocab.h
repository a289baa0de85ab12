// A BERT WordPiece vocabulary (`vocab.txt`): UTF-8, one token per line, id = 0-based line number.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace jetchar::loaders::text {

class Vocab {
 public:
  /// Reads `path`. Throws TextFormatError (naming the file and line) for ill-formed UTF-8, a
  /// duplicate token, or a missing [UNK], [CLS], [SEP] or [PAD]; std::system_error-like
  /// TextFormatError when the file cannot be read.
  static Vocab read(const std::filesystem::path& path);

  /// Parses the contents of a vocab.txt; `source` names it in errors. Only the line break is
  /// removed from a line (as HF does; Google's reader also strips spaces, which no real
  /// vocabulary relies on). "\r\n" line ends are accepted.
  static Vocab parse(std::string_view content, std::string_view source);

  /// The id of `token`, if the vocabulary has it.
  std::optional<std::int64_t> find(std::string_view token) const;
  const std::string& token(std::int64_t id) const { return tokens_.at(static_cast<std::size_t>(id)); }
  std::int64_t size() const { return static_cast<std::int64_t>(tokens_.size()); }

  std::int64_t unk_id() const { return unk_id_; }
  std::int64_t cls_id() const { return cls_id_; }
  std::int64_t sep_id() const { return sep_id_; }
  std::int64_t pad_id() const { return pad_id_; }
  std::optional<std::int64_t> mask_id() const { return find("[MASK]"); }

  /// True when some token other than a bracketed special ("[CLS]", "[unused0]") has an
  /// upper-case letter: a cased model's vocabulary, which must not be lower-cased into.
  bool has_upper_case() const { return has_upper_case_; }

  /// The longest token in code points, not counting a "##" prefix: no WordPiece match can be
  /// longer, which bounds the greedy search.
  std::size_t max_piece_code_points() const { return max_piece_code_points_; }

  std::string_view source() const { return source_; }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  std::string source_;
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, std::int64_t, Hash, std::equal_to<>> ids_;
  std::int64_t unk_id_ = 0;
  std::int64_t cls_id_ = 0;
  std::int64_t sep_id_ = 0;
  std::int64_t pad_id_ = 0;
  bool has_upper_case_ = false;
  std::size_t max_piece_code_points_ = 0;
};

}  // namespace jetchar::loaders::text
