#include "loaders/text/squad_dataset.h"

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "loaders/text/token_sample.h"
#include "loaders/text/utf8.h"

namespace jetchar::loaders::text {

std::optional<std::pair<std::size_t, std::size_t>> answer_piece_range(const std::vector<WordPiece>& context,
                                                                      std::int64_t start, std::int64_t length) {
  const std::int64_t end = start + length;
  std::optional<std::size_t> first;
  std::size_t last = 0;
  for (std::size_t i = 0; i < context.size(); ++i) {
    const auto& span = context[i].span;
    if (static_cast<std::int64_t>(span.end) > start && static_cast<std::int64_t>(span.begin) < end) {
      if (!first) first = i;
      last = i;
    } else if (static_cast<std::int64_t>(span.begin) >= end) {
      break;  // spans are in text order
    }
  }
  if (!first) return std::nullopt;
  return std::pair{*first, last};
}

std::filesystem::path SquadDataset::split_file(const std::filesystem::path& path, const std::string& split,
                                               const std::optional<std::filesystem::path>& dev) {
  namespace fs = std::filesystem;
  const bool directory = fs::is_directory(path);
  auto first_file = [](const std::vector<fs::path>& candidates, std::string_view what) {
    for (const auto& candidate : candidates) {
      if (fs::is_regular_file(candidate)) return candidate;
    }
    std::vector<std::string> names;
    for (const auto& candidate : candidates) names.push_back(candidate.string());
    throw std::invalid_argument(fmt::format("no SQuAD {} file: looked for {}", what, fmt::join(names, ", ")));
  };
  if (split == "train") {
    if (!directory) return first_file({path}, "training");
    return first_file({path / "train-v1.1.json", path / "train-v2.0.json"}, "training");
  }
  if (split != "validation" && split != "valid" && split != "dev") {
    throw std::invalid_argument(fmt::format(
        "SQuAD split '{}' is not one of train, validation (valid, dev): SQuAD publishes no test answers", split));
  }
  fs::path file;
  if (dev) {
    file = first_file({*dev}, "dev (named by dev=)");
  } else if (directory) {
    file = first_file({path / "dev-v1.1.json", path / "dev-v2.0.json"}, "dev");
  } else {
    const std::string name = path.filename().string();
    const auto train = name.find("train");
    if (train == std::string::npos) {
      throw std::invalid_argument(
          fmt::format("no SQuAD dev file for {}: its name has no 'train' to replace by 'dev'; name the dev file "
                      "with ?dev=FILE (e.g. dev-v1.1.json)",
                      path.string()));
    }
    file = first_file({path.parent_path() / (name.substr(0, train) + "dev" + name.substr(train + 5))},
                      fmt::format("dev for {} (name it with ?dev=FILE)", path.string()));
  }
  std::error_code error;
  const fs::path train_file = directory ? path / "train-v1.1.json" : path;
  if (fs::equivalent(file, train_file, error)) {
    throw std::invalid_argument(fmt::format(
        "SQuAD dev file {} is the training file: evaluation needs the dev split (e.g. dev-v1.1.json)", file.string()));
  }
  return file;
}

SquadDataset::SquadDataset(const std::filesystem::path& file, const WordPieceTokenizer& tokenizer,
                           const WindowOptions& windows, std::string name)
    : windows_(windows),
      cls_id_(tokenizer.vocab().cls_id()),
      sep_id_(tokenizer.vocab().sep_id()),
      pad_id_(tokenizer.vocab().pad_id()) {
  if (windows.max_length < windows.max_first_length + 3 + windows.stride + 1) {
    throw std::invalid_argument(fmt::format(
        "{}: max_length {} must exceed max question length {} + 3 special tokens + stride {}, so that every "
        "window holds more context tokens than consecutive windows share",
        file.string(), windows.max_length, windows.max_first_length, windows.stride));
  }
  SquadData data = read_squad(file);
  const std::string source = file.string();
  // "v2.0" in the official files; a file without the field is v2.0 when it marks a question impossible.
  std::string_view version = data.version;
  if (version.starts_with('v') || version.starts_with('V')) version.remove_prefix(1);
  version_2_ =
      version.starts_with("2") || std::any_of(data.questions.begin(), data.questions.end(),
                                              [](const SquadQuestion& question) { return question.is_impossible; });

  std::vector<std::vector<WordPiece>> contexts;
  contexts.reserve(data.paragraphs.size());
  contexts_.reserve(data.paragraphs.size());
  paragraph_starts_.push_back(0);
  for (std::size_t p = 0; p < data.paragraphs.size(); ++p) {
    const std::string& text = data.paragraphs[p].context;
    contexts.push_back(tokenizer.tokenize(text, source));
    // Piece spans count code points; evaluation cuts answers out of the UTF-8 text by bytes.
    const DecodedText decoded = decode_utf8(text, source);
    for (const WordPiece& piece : contexts.back()) {
      context_ids_.push_back(static_cast<std::int32_t>(piece.id));
      context_piece_bytes_.emplace_back(static_cast<std::uint32_t>(decoded.byte_offsets.at(piece.span.begin)),
                                        static_cast<std::uint32_t>(decoded.byte_offsets.at(piece.span.end)));
    }
    paragraph_starts_.push_back(context_ids_.size());
    contexts_.push_back(std::move(data.paragraphs[p].context));
  }

  question_starts_.push_back(0);
  for (std::size_t q = 0; q < data.questions.size(); ++q) {
    const SquadQuestion& question = data.questions[q];
    std::vector<WordPiece> pieces = tokenizer.tokenize(question.question, source);
    if (pieces.size() > windows.max_first_length) {
      pieces.resize(windows.max_first_length);
      ++truncated_questions_;
    }
    for (const WordPiece& piece : pieces) question_ids_pieces_.push_back(static_cast<std::int32_t>(piece.id));
    question_starts_.push_back(question_ids_pieces_.size());
    question_paragraph_.push_back(question.paragraph);
    question_ids_.push_back(question.id);
    auto& gold = gold_answers_.emplace_back();
    for (const SquadAnswer& answer : question.answers) gold.push_back(answer.text);

    const std::vector<WordPiece>& context = contexts[question.paragraph];
    // Training uses the first reference answer, as BERT's run_squad and HF's run_qa do.
    std::optional<std::pair<std::size_t, std::size_t>> answer;
    if (!question.answers.empty()) {
      answer = answer_piece_range(context, question.answers.front().start, question.answers.front().length);
      if (!answer) ++answers_without_pieces_;
    }
    const std::size_t capacity = windows.max_length - 3 - pieces.size();
    const auto offset = static_cast<std::int64_t>(pieces.size() + 2);  // [CLS] question [SEP]
    for (const auto& [begin, end] : window_spans(context.size(), capacity, windows.stride)) {
      QaFeature feature{q, begin, end, 0, 0};
      if (answer && answer->first >= begin && answer->second < end) {
        feature.start_position = offset + static_cast<std::int64_t>(answer->first - begin);
        feature.end_position = offset + static_cast<std::int64_t>(answer->second - begin);
      }
      features_.push_back(feature);
    }
  }

  info_.name = name.empty() ? file.filename().string() : std::move(name);
  info_.format = "squad";
  info_.root = file;
  info_.layout.input_type = InputType::kInt64;
  info_.layout.input_shape = {static_cast<std::int64_t>(windows.max_length)};
  info_.layout.target_shape = {2};
  info_.layout.has_attention_mask = true;
  info_.layout.has_token_type_ids = true;
  info_.files = {file};
  info_.bytes = total_file_bytes(info_.files);
}

std::pair<std::int64_t, std::int64_t> SquadDataset::context_positions(std::int64_t index) const {
  const QaFeature& f = feature(index);
  const auto first = static_cast<std::int64_t>(question_starts_[f.question + 1] - question_starts_[f.question] + 2);
  return {first, first + static_cast<std::int64_t>(f.window_end - f.window_begin) - 1};
}

std::string SquadDataset::span_text(std::int64_t index, std::int64_t start, std::int64_t end) const {
  const auto [first, last] = context_positions(index);
  if (start < first || end > last || end < start) {
    throw std::out_of_range(fmt::format("{}: span [{}, {}] of sample {} is not within its context positions [{}, {}]",
                                        info_.name, start, end, index, first, last));
  }
  const QaFeature& f = feature(index);
  const std::size_t paragraph = question_paragraph_[f.question];
  const std::size_t base = paragraph_starts_[paragraph] + f.window_begin;
  const std::uint32_t begin_byte = context_piece_bytes_[base + static_cast<std::size_t>(start - first)].first;
  const std::uint32_t end_byte = context_piece_bytes_[base + static_cast<std::size_t>(end - first)].second;
  return contexts_[paragraph].substr(begin_byte, end_byte - begin_byte);
}

SampleStatus SquadDataset::get(std::int64_t index, Rng& /*rng: no augmentation*/, const SampleOut& out) const {
  if (index < 0 || index >= size()) {
    return SampleStatus::failure(fmt::format("{}: sample {} out of range 0..{}", info_.name, index, size() - 1));
  }
  if (!fits_token_sample(out, windows_.max_length, 2)) {
    return SampleStatus::failure(fmt::format("{}: sample {} needs {} positions and 2 targets in the output slices",
                                             info_.name, index, windows_.max_length));
  }
  const QaFeature& feature = features_[static_cast<std::size_t>(index)];
  const std::size_t q_begin = question_starts_[feature.question];
  const std::size_t q_end = question_starts_[feature.question + 1];
  const std::size_t c_base = paragraph_starts_[question_paragraph_[feature.question]];
  const auto question = std::span(question_ids_pieces_).subspan(q_begin, q_end - q_begin);
  const auto window =
      std::span(context_ids_).subspan(c_base + feature.window_begin, feature.window_end - feature.window_begin);
  write_token_sequences(out, question, window, true, cls_id_, sep_id_, pad_id_);
  out.target[0] = feature.start_position;
  out.target[1] = feature.end_position;
  return SampleStatus::success((question.size() + window.size()) * sizeof(std::int32_t));
}

}  // namespace jetchar::loaders::text
