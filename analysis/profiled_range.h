// The range of each knob (cores and the CPU, GPU and EMC clocks) over the profiled modes, and which
// knobs of another mode lie outside it. A prediction there extrapolates the fitted forms, and the
// predictor's cross-validation, which only leaves out profiled modes, cannot check how well: a
// pick without a single-core mode, for one, extrapolates the CPU term from 2-12 cores to 1
// (bench/README.md, "Truths drawn at random"). `analyze predict` names those knobs per prediction.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/run_record.h"

namespace jetchar::analysis {

/// One knob's least and greatest value over the profiled modes (cores, or a clock in kHz).
struct KnobRange {
  std::string_view knob;  ///< cpu_cores, cpu_freq_khz, gpu_freq_khz or emc_freq_khz
  std::int64_t low = 0, high = 0;
};

class ProfiledRange {
 public:
  /// Throws std::invalid_argument when no mode is given or one lacks a knob (naming the mode).
  explicit ProfiledRange(std::span<const PowerMode> profiled);

  const std::vector<KnobRange>& knobs() const { return knobs_; }
  /// The knobs of `mode` outside their profiled range, in knobs() order; empty inside every one.
  /// Throws std::invalid_argument when `mode` lacks a knob.
  std::vector<KnobRange> outside(const PowerMode& mode) const;

 private:
  std::vector<KnobRange> knobs_;
};

}  // namespace jetchar::analysis
