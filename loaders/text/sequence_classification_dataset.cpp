#include "loaders/text/sequence_classification_dataset.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <stdexcept>

#include "loaders/text/text_error.h"

namespace jetchar::loaders::text {

namespace {

std::optional<std::int64_t> as_integer(const std::string& text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

std::vector<std::string> label_set(const ClassificationFile& file) {
  std::set<std::string> distinct;
  for (const auto& example : file.examples) distinct.insert(example.label);
  std::vector<std::string> labels(distinct.begin(), distinct.end());
  const bool integers =
      std::all_of(labels.begin(), labels.end(), [](const auto& l) { return as_integer(l).has_value(); });
  if (integers) {
    std::sort(labels.begin(), labels.end(),
              [](const auto& a, const auto& b) { return *as_integer(a) < *as_integer(b); });
  }
  return labels;
}

SequenceClassificationDataset::SequenceClassificationDataset(const std::filesystem::path& file,
                                                             const WordPieceTokenizer& tokenizer,
                                                             std::size_t max_length,
                                                             std::optional<std::vector<std::string>> labels,
                                                             std::string name)
    : max_length_(max_length), pad_id_(tokenizer.vocab().pad_id()) {
  if (max_length < 3) {
    throw std::invalid_argument(fmt::format(
        "{}: max_length {} leaves no room for [CLS], a token and [SEP] (at least 3)", file.string(), max_length));
  }
  const ClassificationFile examples = read_classification(file);
  pairs_ = examples.pair_column.has_value();
  const std::vector<std::string> classes = labels ? std::move(*labels) : label_set(examples);
  std::map<std::string, std::int64_t> ids;
  for (std::size_t i = 0; i < classes.size(); ++i) ids.emplace(classes[i], static_cast<std::int64_t>(i));
  starts_.reserve(examples.examples.size() + 1);
  starts_.push_back(0);
  for (const auto& example : examples.examples) {
    const auto source = fmt::format("{}:{}", file.string(), example.line);
    const auto label = ids.find(example.label);
    if (label == ids.end()) {
      throw TextFormatError(fmt::format("{}: label '{}' is not in the training split's labels ({})", source,
                                        example.label, fmt::join(classes, ", ")));
    }
    const Encoding encoding = example.text_pair
                                  ? tokenizer.encode_pair(example.text, *example.text_pair, max_length, false, source)
                                  : tokenizer.encode(example.text, max_length, false, source);
    truncated_ += encoding.truncated;
    std::size_t second = encoding.length;
    for (std::size_t i = 0; i < encoding.length; ++i) {
      ids_.push_back(static_cast<std::int32_t>(encoding.input_ids[i]));
      if (second == encoding.length && encoding.token_type_ids[i] == 1) second = i;
    }
    second_.push_back(starts_.back() + second);
    starts_.push_back(ids_.size());
    targets_.push_back(label->second);
  }
  info_.name = name.empty() ? file.filename().string() : std::move(name);
  info_.format =
      fmt::format("text-classification ({}{} -> {})", examples.text_column,
                  examples.pair_column ? ", " + *examples.pair_column : std::string(), examples.label_column);
  info_.root = file;
  info_.classes = classes;
  info_.layout.input_type = InputType::kInt64;
  info_.layout.input_shape = {static_cast<std::int64_t>(max_length)};
  info_.layout.target_shape = {};
  info_.layout.has_attention_mask = true;
  info_.layout.has_token_type_ids = true;
  info_.files = {file};
  info_.bytes = total_file_bytes(info_.files);
}

std::filesystem::path SequenceClassificationDataset::split_file(const std::filesystem::path& dir,
                                                                const std::string& split) {
  std::vector<std::string> stems;
  if (split == "train") {
    stems = {"train"};
  } else if (split == "validation" || split == "dev" || split == "valid") {
    stems = {"dev", "validation", "valid", "dev_matched"};
  } else if (split == "test") {
    stems = {"test"};
  } else {
    throw std::invalid_argument(
        fmt::format("text-classification split '{}' is not one of train, validation (dev), test", split));
  }
  std::vector<std::string> names;
  for (const auto& stem : stems) {
    for (const char* extension : {".tsv", ".csv", ".jsonl", ".json"}) {
      names.push_back(stem + extension);
      if (std::filesystem::is_regular_file(dir / names.back())) return dir / names.back();
    }
  }
  throw std::invalid_argument(fmt::format("{}: no {} file of a text-classification data set (looked for {})",
                                          dir.string(), split, fmt::join(names, ", ")));
}

SampleStatus SequenceClassificationDataset::get(std::int64_t index, Rng& /*rng: no augmentation*/,
                                                const SampleOut& out) const {
  if (index < 0 || index >= size()) {
    return SampleStatus::failure(fmt::format("{}: sample {} out of range 0..{}", info_.name, index, size() - 1));
  }
  if (out.input_i64.size() != max_length_ || out.attention_mask.size() != max_length_ ||
      out.token_type_ids.size() != max_length_ || out.target.size() != 1) {
    return SampleStatus::failure(
        fmt::format("{}: sample {} needs {} positions and one target", info_.name, index, max_length_));
  }
  const auto i = static_cast<std::size_t>(index);
  const std::size_t begin = starts_[i];
  const std::size_t end = starts_[i + 1];
  const std::size_t second = second_[i];
  std::int64_t* ids = out.input_i64.data();
  std::int64_t* types = out.token_type_ids.data();
  std::int64_t* mask = out.attention_mask.data();
  const std::size_t length = end - begin;
  for (std::size_t p = 0; p < length; ++p) {
    ids[p] = ids_[begin + p];
    types[p] = begin + p >= second ? 1 : 0;
    mask[p] = 1;
  }
  std::fill(ids + length, ids + max_length_, pad_id_);
  std::fill(types + length, types + max_length_, 0);
  std::fill(mask + length, mask + max_length_, 0);
  out.target[0] = targets_[i];
  return SampleStatus::success(length * sizeof(std::int32_t));
}

}  // namespace jetchar::loaders::text
