// The masked-LM pretraining data set ("corpus:FILE"): a plain-text corpus
// (pretraining_corpus.h) WordPiece-tokenized once when it opens, packed into sequences of
// max_length positions (pretraining_instances.h), each masked when a sample is written
// (masked_lm_masking.h). A sample is the ids [CLS] A [SEP] (B [SEP]) [PAD]..., its attention mask
// and segment ids, and one target per position: the original token where masked, -100 elsewhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "loaders/dataset.h"
#include "loaders/text/masked_lm_masking.h"
#include "loaders/text/pretraining_instances.h"
#include "loaders/text/wordpiece_tokenizer.h"

namespace jetchar::loaders::text {

struct PretrainingCorpusOptions {
  PackingOptions packing;
  /// Share of each sequence's tokens to mask (BERT's masked_lm_prob), in (0, 1].
  double mask_prob = 0.15;
};

class PretrainingCorpusDataset : public Dataset {
 public:
  /// Reads, tokenizes and packs `file`. Throws TextFormatError for a corpus that is not text or
  /// holds no sentence, or a vocabulary without [MASK]; std::invalid_argument for options out of range.
  PretrainingCorpusDataset(const std::filesystem::path& file, const WordPieceTokenizer& tokenizer,
                           const PretrainingCorpusOptions& options, std::string name = {});

  const DatasetInfo& info() const override { return info_; }
  std::int64_t size() const override { return static_cast<std::int64_t>(instances_.size()); }
  SampleStatus get(std::int64_t index, Rng& rng, const SampleOut& out) const override;

  std::size_t documents() const { return documents_; }
  std::size_t sentences() const { return sentences_; }
  std::size_t tokens() const { return tokens_; }
  const PretrainingInstances& instances() const { return instances_; }

 private:
  DatasetInfo info_;
  std::size_t max_length_;
  double mask_prob_;
  MaskingTokens masking_;
  std::size_t documents_ = 0;
  std::size_t sentences_ = 0;
  std::size_t tokens_ = 0;
  PretrainingInstances instances_;
};

}  // namespace jetchar::loaders::text
