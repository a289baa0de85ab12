#include "loaders/text/text_datasets.h"

#include <stdexcept>

#include <fmt/format.h>

#include "loaders/text/conll2003_dataset.h"
#include "loaders/text/pretraining_corpus_dataset.h"
#include "loaders/text/sequence_classification_dataset.h"
#include "loaders/text/squad_dataset.h"
#include "loaders/text/wordpiece_tokenizer.h"

namespace jetchar::loaders::text {
namespace {

WordPieceTokenizer make_tokenizer(const std::filesystem::path& data_path, const TextDatasetOptions& options) {
  WordPieceOptions wordpiece;
  wordpiece.lower_case = options.lower_case;
  return WordPieceTokenizer::from_file(find_vocab(data_path, options), wordpiece);
}

}  // namespace

std::filesystem::path find_vocab(const std::filesystem::path& data_path, const TextDatasetOptions& options) {
  if (options.vocab) {
    if (!std::filesystem::is_regular_file(*options.vocab)) {
      throw std::invalid_argument(fmt::format("vocabulary {} is not a file", options.vocab->string()));
    }
    return *options.vocab;
  }
  const std::filesystem::path dir = std::filesystem::is_directory(data_path) ? data_path : data_path.parent_path();
  std::filesystem::path candidate = dir / "vocab.txt";
  if (std::filesystem::is_regular_file(candidate)) return candidate;
  throw std::invalid_argument(
      fmt::format("no WordPiece vocabulary for {}: {} does not exist; put the model's "
                  "vocab.txt there or name it explicitly",
                  data_path.string(), candidate.string()));
}

std::unique_ptr<Dataset> open_conll2003(const std::filesystem::path& dir, const TextDatasetOptions& options) {
  if (!std::filesystem::is_directory(dir)) {
    throw std::invalid_argument(
        fmt::format("conll2003:{}: not a directory (expected train.txt/valid.txt/test.txt "
                    "or eng.train/eng.testa/eng.testb)",
                    dir.string()));
  }
  const std::filesystem::path file = Conll2003Dataset::split_file(dir, options.split);
  const WordPieceTokenizer tokenizer = make_tokenizer(dir, options);
  return std::make_unique<Conll2003Dataset>(file, tokenizer, options.max_length.value_or(128), std::nullopt,
                                            fmt::format("conll2003/{}", options.split));
}

std::unique_ptr<Dataset> open_text_classification(const std::filesystem::path& path,
                                                  const TextDatasetOptions& options) {
  const bool directory = std::filesystem::is_directory(path);
  if (!directory && !std::filesystem::is_regular_file(path)) {
    throw std::invalid_argument(fmt::format(
        "textcls:{}: neither a directory (with train.tsv/.csv/.jsonl, dev.*, test.*) nor a file", path.string()));
  }
  if (!directory && options.split != "train") {
    throw std::invalid_argument(
        fmt::format("textcls:{}: a single file is the training split; for the {} split give the directory that holds "
                    "train.* and the {} file",
                    path.string(), options.split, options.split));
  }
  const std::filesystem::path train = directory ? SequenceClassificationDataset::split_file(path, "train") : path;
  const std::filesystem::path file =
      options.split == "train" ? train : SequenceClassificationDataset::split_file(path, options.split);
  std::optional<std::vector<std::string>> labels;
  if (file != train) labels = label_set(read_classification(train));
  const WordPieceTokenizer tokenizer = make_tokenizer(path, options);
  return std::make_unique<SequenceClassificationDataset>(file, tokenizer, options.max_length.value_or(128),
                                                         std::move(labels), fmt::format("textcls/{}", options.split));
}

std::unique_ptr<Dataset> open_pretraining_corpus(const std::filesystem::path& file, const TextDatasetOptions& options,
                                                 double mask_prob, double short_seq_prob, std::uint64_t seed) {
  if (!std::filesystem::is_regular_file(file)) {
    throw std::invalid_argument(fmt::format(
        "corpus:{}: not a file (expected plain UTF-8 text, one sentence per line, documents separated by blank lines)",
        file.string()));
  }
  const WordPieceTokenizer tokenizer = make_tokenizer(file, options);
  PretrainingCorpusOptions corpus;
  corpus.packing.max_length = options.max_length.value_or(128);
  corpus.packing.short_seq_prob = short_seq_prob;
  corpus.packing.seed = seed;
  corpus.mask_prob = mask_prob;
  return std::make_unique<PretrainingCorpusDataset>(file, tokenizer, corpus,
                                                    fmt::format("corpus/{}", file.filename().string()));
}

std::unique_ptr<Dataset> open_squad(const std::filesystem::path& file, const TextDatasetOptions& options) {
  if (!std::filesystem::is_regular_file(file)) {
    throw std::invalid_argument(
        fmt::format("squad:{}: not a file (expected a SQuAD v1.1 JSON file such as "
                    "train-v1.1.json)",
                    file.string()));
  }
  const WordPieceTokenizer tokenizer = make_tokenizer(file, options);
  WindowOptions windows;
  windows.max_length = options.max_length.value_or(384);
  windows.stride = options.stride;
  windows.max_first_length = options.max_query_length;
  return std::make_unique<SquadDataset>(file, tokenizer, windows, fmt::format("squad/{}", file.stem().string()));
}

}  // namespace jetchar::loaders::text
