// Opening the text data sets from a data-set spec ("conll2003:DIR", "squad:FILE", "textcls:DIR",
// "corpus:FILE"): finds the split
// file and the WordPiece vocabulary, builds the tokenizer and the data set in one call, so the
// spec parser needs one line per kind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "loaders/dataset.h"

namespace jetchar::loaders::text {

struct TextDatasetOptions {
  /// CoNLL-2003 split: train, validation (valid, dev, testa) or test (testb).
  std::string split = "train";
  /// The vocab.txt; default: vocab.txt in the CoNLL directory or beside the SQuAD file.
  std::optional<std::filesystem::path> vocab;
  /// Positions per sample; default 128 for CoNLL-2003 and 384 for SQuAD (BERT's fine-tuning settings).
  std::optional<std::size_t> max_length;
  /// SQuAD: context tokens shared by consecutive windows, and the question's cap (BERT: 128, 64).
  std::size_t stride = 128;
  std::size_t max_query_length = 64;
  /// nullopt: lower-case exactly when the vocabulary has no upper-case tokens.
  std::optional<bool> lower_case;
};

/// The vocabulary to use for data at `data_path` (a directory or a file); throws
/// std::invalid_argument naming the places looked at when there is none.
std::filesystem::path find_vocab(const std::filesystem::path& data_path, const TextDatasetOptions& options);

/// conll2003:DIR -> token classification samples of DIR's `options.split` file.
std::unique_ptr<Dataset> open_conll2003(const std::filesystem::path& dir, const TextDatasetOptions& options = {});

/// textcls:PATH -> sequence-classification samples (sequence_classification_dataset.h): PATH is a
/// directory holding train.* (and dev.*, test.*; tsv, csv or jsonl) or one file, the training
/// split. Every split takes its label set from the training file. max_length defaults to 128.
std::unique_ptr<Dataset> open_text_classification(const std::filesystem::path& path,
                                                  const TextDatasetOptions& options = {});

/// corpus:FILE -> masked-LM pretraining sequences of the plain-text corpus FILE
/// (pretraining_corpus_dataset.h); max_length defaults to 128 (BERT's phase 1). The vocabulary is
/// options.vocab or vocab.txt beside FILE.
std::unique_ptr<Dataset> open_pretraining_corpus(const std::filesystem::path& file,
                                                 const TextDatasetOptions& options = {}, double mask_prob = 0.15,
                                                 double short_seq_prob = 0.1, std::uint64_t seed = 12345);

/// squad:FILE -> question-answering windows of FILE.
std::unique_ptr<Dataset> open_squad(const std::filesystem::path& file, const TextDatasetOptions& options = {});

}  // namespace jetchar::loaders::text
