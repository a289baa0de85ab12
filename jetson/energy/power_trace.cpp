#include "jetson/energy/power_trace.h"

#include <fmt/format.h>

#include <stdexcept>

namespace jetchar::jetson::energy {

std::string_view to_string(RailRole role) {
  switch (role) {
    case RailRole::kBoardInput: return "board-input";
    case RailRole::kModule: return "module";
    case RailRole::kSubRail: return "sub-rail";
  }
  return "unknown";
}

PowerTrace::PowerTrace(std::vector<ChannelInfo> channels) : channels_(std::move(channels)) {
  for (std::size_t i = 0; i < channels_.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (channels_[i].name == channels_[j].name) {
        throw std::invalid_argument(
            fmt::format("power trace: channel name '{}' appears twice; names must be unique", channels_[i].name));
      }
    }
  }
}

void PowerTrace::reserve(std::size_t samples) {
  times_ns_.reserve(samples);
  values_mw_.reserve(samples * channels_.size());
  valid_.reserve(samples * channels_.size());
}

void PowerTrace::append(std::int64_t time_ns, std::span<const std::optional<double>> power_mw) {
  if (power_mw.size() != channels_.size()) {
    throw std::invalid_argument(fmt::format("power trace: sample at {} ns has {} values; the trace has {} channels",
                                            time_ns, power_mw.size(), channels_.size()));
  }
  if (!times_ns_.empty() && time_ns < times_ns_.back()) {
    throw std::invalid_argument(fmt::format(
        "power trace: sample at {} ns is earlier than the previous one at {} ns; timestamps must not go backwards",
        time_ns, times_ns_.back()));
  }
  times_ns_.push_back(time_ns);
  for (const auto& value : power_mw) {
    values_mw_.push_back(value.value_or(0.0));
    valid_.push_back(value.has_value() ? 1 : 0);
  }
}

void PowerTrace::append(std::int64_t time_ns, std::initializer_list<std::optional<double>> power_mw) {
  append(time_ns, std::span<const std::optional<double>>(power_mw.begin(), power_mw.size()));
}

std::optional<std::size_t> PowerTrace::find_channel(std::string_view name) const {
  for (std::size_t i = 0; i < channels_.size(); ++i) {
    if (channels_[i].name == name) return i;
  }
  return std::nullopt;
}

std::optional<double> PowerTrace::power_mw(std::size_t channel, std::size_t sample) const {
  const std::size_t index = sample * channels_.size() + channel;
  if (valid_[index] == 0) return std::nullopt;
  return values_mw_[index];
}

PowerTrace PowerTrace::shifted(std::int64_t offset_ns) const {
  PowerTrace copy = *this;
  for (auto& t : copy.times_ns_) t += offset_ns;
  return copy;
}

}  // namespace jetchar::jetson::energy
