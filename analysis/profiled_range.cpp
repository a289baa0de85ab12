#include "analysis/profiled_range.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>

namespace jetchar::analysis {
namespace {

constexpr std::array<std::string_view, 4> kKnobs = {"cpu_cores", "cpu_freq_khz", "gpu_freq_khz", "emc_freq_khz"};

std::array<std::int64_t, 4> values_of(const PowerMode& mode) {
  if (!mode.has_knobs()) {
    throw std::invalid_argument(
        fmt::format("power mode '{}' lacks a knob (cpu_cores, cpu_freq, gpu_freq, emc_freq), so its range is unknown",
                    mode.label()));
  }
  return {*mode.cpu_cores, *mode.cpu_freq_khz, *mode.gpu_freq_khz, *mode.emc_freq_khz};
}

}  // namespace

ProfiledRange::ProfiledRange(std::span<const PowerMode> profiled) {
  if (profiled.empty()) throw std::invalid_argument("a profiled range needs at least one profiled mode");
  const auto first = values_of(profiled.front());
  for (std::size_t k = 0; k < kKnobs.size(); ++k) knobs_.push_back({kKnobs[k], first[k], first[k]});
  for (const PowerMode& mode : profiled) {
    const auto v = values_of(mode);
    for (std::size_t k = 0; k < kKnobs.size(); ++k) {
      knobs_[k].low = std::min(knobs_[k].low, v[k]);
      knobs_[k].high = std::max(knobs_[k].high, v[k]);
    }
  }
}

std::vector<KnobRange> ProfiledRange::outside(const PowerMode& mode) const {
  const auto v = values_of(mode);
  std::vector<KnobRange> out;
  for (std::size_t k = 0; k < kKnobs.size(); ++k) {
    if (v[k] < knobs_[k].low || v[k] > knobs_[k].high) out.push_back(knobs_[k]);
  }
  return out;
}

}  // namespace jetchar::analysis
