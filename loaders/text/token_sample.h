// Writes BERT token samples straight into the batch buffers (SampleOut), without allocating:
// input ids, attention mask and segment ids laid out as [CLS] A [SEP] (B [SEP]) [PAD]...
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include "loaders/dataset.h"

namespace jetchar::loaders::text {

/// Whether `out` has `length` slots for ids, mask and segment ids, and `target_length` for targets.
inline bool fits_token_sample(const SampleOut& out, std::size_t length, std::size_t target_length) {
  return out.input_i64.size() == length && out.attention_mask.size() == length && out.token_type_ids.size() == length &&
         out.target.size() == target_length;
}

/// [CLS] first [SEP] (second [SEP] when `has_second`) then padding, over the whole of out.input_i64.
/// The caller checked that everything fits.
inline void write_token_sequences(const SampleOut& out, std::span<const std::int32_t> first,
                                  std::span<const std::int32_t> second, bool has_second, std::int64_t cls_id,
                                  std::int64_t sep_id, std::int64_t pad_id) {
  std::int64_t* ids = out.input_i64.data();
  std::int64_t* types = out.token_type_ids.data();
  std::size_t n = 0;
  auto put = [&](std::int64_t id, std::int64_t type) {
    ids[n] = id;
    types[n] = type;
    ++n;
  };
  put(cls_id, 0);
  for (const std::int32_t id : first) put(id, 0);
  put(sep_id, 0);
  if (has_second) {
    for (const std::int32_t id : second) put(id, 1);
    put(sep_id, 1);
  }
  const std::size_t length = out.input_i64.size();
  std::fill(ids + n, ids + length, pad_id);
  std::fill(types + n, types + length, 0);
  std::int64_t* mask = out.attention_mask.data();
  std::fill(mask, mask + n, 1);
  std::fill(mask + n, mask + length, 0);
}

inline void write_single_sequence(const SampleOut& out, std::span<const std::int32_t> pieces, std::int64_t cls_id,
                                  std::int64_t sep_id, std::int64_t pad_id) {
  write_token_sequences(out, pieces, {}, false, cls_id, sep_id, pad_id);
}

}  // namespace jetchar::loaders::text
