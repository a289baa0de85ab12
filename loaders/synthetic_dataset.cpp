#include "loaders/synthetic_dataset.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <thread>

namespace jetchar::loaders {

SyntheticDataset::SyntheticDataset(std::vector<std::int64_t> shape, std::int64_t samples, std::int64_t classes,
                                   std::chrono::microseconds delay_per_sample)
    : samples_(samples), delay_(delay_per_sample) {
  std::string shape_text;
  for (auto dim : shape) shape_text += fmt::format("{}{}", shape_text.empty() ? "" : "x", dim);
  if (shape.empty() || std::any_of(shape.begin(), shape.end(), [](auto d) { return d <= 0 || d > (1 << 20); })) {
    throw std::invalid_argument(
        fmt::format("synthetic shape '{}' is not valid; expected sizes 1..1048576 like 3x32x32", shape_text));
  }
  // At most 2^28 values a sample, checked size by size so that the product cannot overflow first.
  constexpr std::int64_t kMaxValues = std::int64_t{1} << 28;
  std::int64_t values = 1;
  for (auto dim : shape) {
    if (values > kMaxValues / dim) {
      throw std::invalid_argument(fmt::format("synthetic shape '{}' has more than 2^28 values per sample", shape_text));
    }
    values *= dim;
  }
  if (samples <= 0 || classes <= 0 || delay_per_sample.count() < 0) {
    throw std::invalid_argument(
        fmt::format("synthetic data set: samples {} / classes {} / delay {} us not valid; "
                    "expected samples >= 1, classes >= 1, delay >= 0",
                    samples, classes, delay_per_sample.count()));
  }
  info_.name = "synthetic:" + shape_text;
  info_.format = "synthetic";
  for (std::int64_t c = 0; c < classes; ++c) info_.classes.push_back(std::to_string(c));
  info_.layout.input_type = InputType::kFloat32;
  info_.layout.input_shape = std::move(shape);
  info_.layout.target_shape = {};
}

SampleStatus SyntheticDataset::get(std::int64_t index, Rng& rng, const SampleOut& out) const {
  if (index < 0 || index >= samples_) {
    return SampleStatus::failure(fmt::format("{}: sample {} out of range 0..{}", info_.name, index, samples_ - 1));
  }
  if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
  const float value = static_cast<float>(index) + static_cast<float>(rng.uniform());
  std::fill(out.input_f32.begin(), out.input_f32.end(), value);
  if (!out.target.empty()) out.target[0] = index % static_cast<std::int64_t>(info_.classes.size());
  return SampleStatus::success(0);
}

}  // namespace jetchar::loaders
