#include "loaders/text/masked_lm_masking.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace jetchar::loaders::text {

std::size_t mask_tokens(std::span<std::int64_t> ids, std::span<std::int64_t> targets, std::size_t length,
                        const MaskingTokens& tokens, double probability, Rng& rng) {
  std::fill(targets.begin(), targets.end(), kIgnoredTarget);
  length = std::min(length, ids.size());
  // Per worker thread: the pipeline calls this concurrently (loaders/dataset.h).
  thread_local std::vector<std::size_t> candidates;
  candidates.clear();
  for (std::size_t i = 0; i < length; ++i) {
    const auto id = ids[i];
    if (id != tokens.cls_id && id != tokens.sep_id && id != tokens.pad_id) candidates.push_back(i);
  }
  if (candidates.empty()) return 0;
  const auto wanted =
      std::max<std::size_t>(1, static_cast<std::size_t>(std::llround(static_cast<double>(length) * probability)));
  const std::size_t count = std::min(wanted, candidates.size());
  // A partial Fisher-Yates shuffle: the first `count` candidates are a uniform random subset.
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t pick = k + static_cast<std::size_t>(rng.below(candidates.size() - k));
    std::swap(candidates[k], candidates[pick]);
    const std::size_t position = candidates[k];
    targets[position] = ids[position];
    if (rng.uniform() < 0.8) {
      ids[position] = tokens.mask_id;
    } else if (rng.uniform() < 0.5) {
      // Unchanged: the model must predict the token it sees as well.
    } else {
      ids[position] = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(tokens.vocab_size)));
    }
  }
  return count;
}

}  // namespace jetchar::loaders::text
