// Packing a tokenized corpus into pretraining sequences, after create_instances_from_document in
// BERT's create_pretraining_data.py (google-research/bert): per document, sentences are gathered
// until they reach the target length (max_length - 3 tokens, or with probability short_seq_prob a
// length drawn from [2, max_length - 3], so that the model also sees short sequences); a chunk of
// several sentences is split at a random sentence boundary into segment A and segment B, the
// sentences that actually follow A, laid out as [CLS] A [SEP] B [SEP] with segment ids 0 and 1. Too
// long a pair loses tokens from the longer segment, from its front or back at random (its
// truncate_seq_pair).
//
// Unlike that script, B is never a random other document's text: jetchar's masked-LM models have
// no next-sentence head (HF's BertForMaskedLM), and RoBERTa and ELECTRA pretrain without that
// objective. A chunk of one sentence therefore becomes [CLS] A [SEP] on its own rather than taking
// a random B. The random choices come from loaders/rng.h seeded with `seed`, so a corpus packs the
// same way on every machine (but not as Python's random module would pack it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace jetchar::loaders::text {

struct PackingOptions {
  /// Positions per sequence, [CLS] and [SEP]s included (BERT's phase 1: 128, phase 2: 512).
  std::size_t max_length = 128;
  /// create_pretraining_data.py's --short_seq_prob.
  double short_seq_prob = 0.1;
  /// Its --random_seed default.
  std::uint64_t seed = 12345;
};

struct PretrainingInstances {
  /// Every sequence's ids, [CLS] A [SEP] (B [SEP]) unpadded, back to back: sequence i is
  /// [starts[i], starts[i + 1]), its segment B begins at second[i] (starts[i + 1] without one).
  std::vector<std::int32_t> ids;
  std::vector<std::size_t> starts{0};
  std::vector<std::size_t> second;
  /// Tokens removed to fit pairs into max_length.
  std::size_t truncated_tokens = 0;

  std::size_t size() const { return second.size(); }
};

/// `documents`: each document's sentences as WordPiece ids (an empty sentence is skipped).
/// Throws std::invalid_argument for max_length < 5 (room for [CLS] A [SEP] B [SEP]) or a
/// short_seq_prob outside [0, 1].
PretrainingInstances pack_pretraining_instances(const std::vector<std::vector<std::vector<std::int32_t>>>& documents,
                                                std::int32_t cls_id, std::int32_t sep_id,
                                                const PackingOptions& options);

}  // namespace jetchar::loaders::text
