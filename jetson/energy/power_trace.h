// A power sample stream: monotonic timestamps (ns) and, per channel, a power value in mW that
// may be missing for a sample (a failed read, a meter gap). Energy integration, baseload and
// alignment all work on this one shape, whatever the source (INA3221 rails, an external meter).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace jetchar::jetson::energy {

/// What a channel measures, which decides how a board total is formed: the board input where
/// one exists; otherwise the module rails summed. Sub-rails are fed by another measured rail
/// (AGX Orin VDDQ_VDD2_1V8AO from VIN_SYS_5V0) and never count towards a total.
enum class RailRole { kBoardInput, kModule, kSubRail };

std::string_view to_string(RailRole role);

struct ChannelInfo {
  std::string name;
  RailRole role = RailRole::kModule;
  /// Power derived from a cumulative energy counter (NVML, RAPL): each sample is the mean power
  /// since the previous one, so a window integrates it as a backward rectangle and its energy is
  /// the counter's difference, whatever method the window asks for.
  bool from_counter = false;
};

class PowerTrace {
 public:
  PowerTrace() = default;
  explicit PowerTrace(std::vector<ChannelInfo> channels);

  void reserve(std::size_t samples);
  /// Appends one sample. `power_mw` holds one entry per channel (nullopt = not valid for this
  /// sample). Throws std::invalid_argument when the time goes backwards or the count is wrong.
  void append(std::int64_t time_ns, std::span<const std::optional<double>> power_mw);
  void append(std::int64_t time_ns, std::initializer_list<std::optional<double>> power_mw);

  std::size_t size() const { return times_ns_.size(); }
  bool empty() const { return times_ns_.empty(); }
  std::size_t channel_count() const { return channels_.size(); }
  const std::vector<ChannelInfo>& channels() const { return channels_; }
  const ChannelInfo& channel(std::size_t index) const { return channels_.at(index); }
  std::optional<std::size_t> find_channel(std::string_view name) const;

  std::int64_t time_ns(std::size_t sample) const { return times_ns_[sample]; }
  const std::vector<std::int64_t>& times_ns() const { return times_ns_; }
  std::optional<double> power_mw(std::size_t channel, std::size_t sample) const;

  /// The same samples with every timestamp moved by `offset_ns` (aligning an external meter).
  PowerTrace shifted(std::int64_t offset_ns) const;

 private:
  std::vector<ChannelInfo> channels_;
  std::vector<std::int64_t> times_ns_;
  std::vector<double> values_mw_;    // row-major: sample * channel_count + channel
  std::vector<std::uint8_t> valid_;  // same layout
};

}  // namespace jetchar::jetson::energy
