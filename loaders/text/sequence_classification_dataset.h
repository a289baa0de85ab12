// A sequence-classification data set for BERT-type models (GLUE-style tasks, DistilBERT's
// fine-tuning): examples from a TSV/CSV/JSONL file (classification_file.h), each WordPiece-tokenized
// once when the data set opens into [CLS] text [SEP] (text_pair [SEP]) with segment ids 0 then 1,
// cut to max_length by taking tokens from the longer sequence (HF's "longest_first"), padded when a
// sample is written. The target is the label's id in the label set.
//
// The label set comes from the training split, as Hugging Face's run_glue.py builds it for its own
// files: the distinct labels, sorted (by value when every label is an integer, else as text). An
// evaluation split is read against that set, and a label the training split does not have is an
// error naming the file, the line, the label and the set.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "loaders/dataset.h"
#include "loaders/text/classification_file.h"
#include "loaders/text/wordpiece_tokenizer.h"

namespace jetchar::loaders::text {

/// The sorted distinct labels of `file` (integers by value, otherwise by text).
std::vector<std::string> label_set(const ClassificationFile& file);

class SequenceClassificationDataset : public Dataset {
 public:
  /// Reads `file` and tokenizes it into samples of `max_length` positions. `labels`: the training
  /// split's label set; nullopt means `file` is the training split and gives it. Throws
  /// TextFormatError for a malformed file or a label outside `labels`, std::invalid_argument for
  /// max_length < 3.
  SequenceClassificationDataset(const std::filesystem::path& file, const WordPieceTokenizer& tokenizer,
                                std::size_t max_length, std::optional<std::vector<std::string>> labels = std::nullopt,
                                std::string name = {});

  /// The file of `split` in `dir`: train -> train.*; validation (or dev, valid) -> dev.*,
  /// validation.*, valid.*, dev_matched.* (MNLI); test -> test.*; * one of tsv, csv, jsonl, json.
  /// Throws std::invalid_argument naming what was looked for.
  static std::filesystem::path split_file(const std::filesystem::path& dir, const std::string& split);

  const DatasetInfo& info() const override { return info_; }
  std::int64_t size() const override { return static_cast<std::int64_t>(targets_.size()); }
  SampleStatus get(std::int64_t index, Rng& rng, const SampleOut& out) const override;

  /// Examples whose pieces were cut to fit max_length.
  std::size_t truncated_examples() const { return truncated_; }
  bool has_pairs() const { return pairs_; }

 private:
  DatasetInfo info_;
  std::size_t max_length_;
  std::int64_t pad_id_;
  bool pairs_ = false;
  std::size_t truncated_ = 0;
  // Each example's unpadded ids ([CLS] ... [SEP] (... [SEP])) back to back; example i is
  // [starts_[i], starts_[i + 1]) and its second segment begins at second_[i] (its end without a pair).
  std::vector<std::int32_t> ids_;
  std::vector<std::size_t> starts_;
  std::vector<std::size_t> second_;
  std::vector<std::int64_t> targets_;
};

}  // namespace jetchar::loaders::text
