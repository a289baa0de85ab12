#include "jetson/telemetry/telemetry_sample.h"

namespace jetchar::jetson {

std::optional<std::size_t> TelemetryLayout::find(std::string_view name) const {
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return i;
  }
  return std::nullopt;
}

std::vector<energy::ChannelInfo> TelemetryLayout::power_channels() const {
  std::vector<energy::ChannelInfo> channels;
  for (const auto& rail : rails) channels.push_back({rail.name, rail.role, rail.from_counter});
  return channels;
}

void append_power(const TelemetryLayout& layout, const TelemetrySample& sample, energy::PowerTrace& trace) {
  std::vector<std::optional<double>> power;
  power.reserve(layout.rails.size());
  for (const auto& rail : layout.rails) power.push_back(sample.values[rail.power_mw].get());
  trace.append(sample.time_ns, power);
}

}  // namespace jetchar::jetson
