// Synthetic samples of any shape for throughput-only runs (no files, no decoding), with an
// optional fixed per-sample delay to model a slow reader (used to check the stall figures).
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "loaders/dataset.h"

namespace jetchar::loaders {

class SyntheticDataset : public Dataset {
 public:
  /// `shape`: per-sample float input shape (any rank, every dimension > 0); targets are index % classes.
  /// Throws std::invalid_argument for an empty shape, non-positive sizes or classes < 1.
  SyntheticDataset(std::vector<std::int64_t> shape, std::int64_t samples, std::int64_t classes,
                   std::chrono::microseconds delay_per_sample = std::chrono::microseconds(0));

  const DatasetInfo& info() const override { return info_; }
  std::int64_t size() const override { return samples_; }
  /// Fills the input with a value derived from `index` and the first draw of `rng` (so tests can
  /// see which augmentation stream a sample got), after sleeping the configured delay.
  SampleStatus get(std::int64_t index, Rng& rng, const SampleOut& out) const override;

 private:
  DatasetInfo info_;
  std::int64_t samples_;
  std::chrono::microseconds delay_;
};

}  // namespace jetchar::loaders
