// The sampler's output: a fixed layout of named fields (units in the names) decided once at
// start, and samples that are flat arrays of values with per-field flags. Samples are
// preallocated in a ring, so taking one allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jetson/energy/power_trace.h"

namespace jetchar::jetson {

/// kNvmlGpu: a GPU read through NVML (clocks, utilisation, memory; its power is a kRail and a
/// kEnergyCounter field, its temperature a kTemperature field).
enum class FieldGroup { kRail, kEnergyCounter, kCpuUtil, kCpuFreq, kGpu, kEmc, kMemory, kTemperature, kNvmlGpu };

struct FieldInfo {
  std::string name;  ///< "VDD_IN.power_mw", "cpu3.util_pct", "policy0.freq_khz", "gpu.load_pct"
  std::string unit;  ///< "mW", "mV", "mA", "%", "kHz", "Hz", "KiB", "m°C"
  FieldGroup group = FieldGroup::kRail;
  /// 0: read every sample. Otherwise read at most this often and carried over in between
  /// (flag kCarried): fields that change slowly or are published slowly by the kernel.
  std::int64_t read_period_ns = 0;
};

namespace field_flags {
inline constexpr std::uint8_t kValid = 1;     ///< the value was read this sample
inline constexpr std::uint8_t kRepeated = 2;  ///< same as the previous reading within the sensor's update interval
/// Not read this sample: the value of the field's last read, taken at TelemetrySample::
/// sub_rate_time_ns, at most FieldInfo::read_period_ns before this sample.
inline constexpr std::uint8_t kCarried = 4;
}  // namespace field_flags

struct FieldValue {
  double value = 0.0;
  std::uint8_t flags = 0;
  bool valid() const { return (flags & field_flags::kValid) != 0; }
  bool repeated() const { return (flags & field_flags::kRepeated) != 0; }
  bool carried() const { return (flags & field_flags::kCarried) != 0; }
  std::optional<double> get() const { return valid() ? std::optional<double>(value) : std::nullopt; }
};

struct TelemetrySample {
  std::int64_t time_ns = 0;      ///< CLOCK_MONOTONIC when reading started
  std::int64_t lateness_ns = 0;  ///< time_ns − the scheduled deadline
  std::int64_t read_ns = 0;      ///< wall time spent reading
  /// Sampler-thread CPU time since the previous sample: this sample's whole cost (wake-up and
  /// reads). For sample_now(): the CPU time of the read alone.
  std::int64_t cpu_ns = 0;
  /// When the sub-rate fields (FieldInfo::read_period_ns > 0) were last read; their age in this
  /// sample is time_ns − sub_rate_time_ns.
  std::int64_t sub_rate_time_ns = 0;
  std::vector<FieldValue> values;
};

struct RailFields {
  std::string name;
  energy::RailRole role = energy::RailRole::kModule;
  std::optional<std::size_t> voltage_mv, current_ma;  ///< field indexes
  std::size_t power_mw = 0;
  bool from_counter = false;  ///< an energy counter's rate (energy::ChannelInfo::from_counter)
};

struct TelemetryLayout {
  std::vector<FieldInfo> fields;
  std::vector<RailFields> rails;  ///< rails and energy counters, in field order
  std::optional<std::size_t> find(std::string_view name) const;
  /// The power channels of the rails as a PowerTrace layout.
  std::vector<energy::ChannelInfo> power_channels() const;
};

/// Appends the rails' power of `sample` to `trace` (whose channels are layout.power_channels()).
void append_power(const TelemetryLayout& layout, const TelemetrySample& sample, energy::PowerTrace& trace);

}  // namespace jetchar::jetson
