// Masked-LM masking of one laid-out sequence, as create_masked_lm_predictions in BERT's
// create_pretraining_data.py (google-research/bert) chooses it: round(probability × the sequence's
// tokens, [CLS] and [SEP] counted) positions, at least one, drawn without replacement among the
// tokens that are not [CLS], [SEP] or [PAD]; each chosen token becomes [MASK] with probability
// 0.8, a token drawn uniformly from the whole vocabulary with 0.1, and stays itself with 0.1. The
// target of a chosen position is its original token; every other target is -100, the index the
// loss ignores (HF's DataCollatorForLanguageModeling labels alike).
//
// The draws come from the caller's Rng: the pipeline seeds it per (seed, epoch, sample), so a
// sample is masked anew every epoch (dynamic masking, as HF's collator and RoBERTa do, where BERT
// wrote dupe_factor fixed maskings) and the same on every machine and worker count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "loaders/rng.h"

namespace jetchar::loaders::text {

inline constexpr std::int64_t kIgnoredTarget = -100;

struct MaskingTokens {
  std::int64_t cls_id = 0;
  std::int64_t sep_id = 0;
  std::int64_t pad_id = 0;
  std::int64_t mask_id = 0;
  std::int64_t vocab_size = 0;
};

/// Masks `ids` (the sequence's first `length` positions are tokens, the rest padding) in place and
/// writes `targets` (as many as `ids`). Returns the number of masked positions (0 when the
/// sequence has no maskable token). `probability` is in (0, 1].
std::size_t mask_tokens(std::span<std::int64_t> ids, std::span<std::int64_t> targets, std::size_t length,
                        const MaskingTokens& tokens, double probability, Rng& rng);

}  // namespace jetchar::loaders::text
