#include "jetson/energy/window_energy.h"

#include <fmt/format.h>

#include <stdexcept>

namespace jetchar::jetson::energy {

WindowEnergy window_energy(const PowerTrace& trace, const Window& window, const WindowEnergyOptions& options) {
  if (!window.end_ns) {
    throw std::invalid_argument(
        fmt::format("window '{}' is still open; end it before computing its energy", window.name));
  }
  WindowEnergy result = window_energy(trace, window.name, window.begin_ns, *window.end_ns, options);
  result.minibatches = window.minibatches;
  result.samples = window.samples;
  const auto per_unit = [&](std::optional<std::uint64_t> count) -> std::optional<double> {
    if (!count || *count == 0 || !result.total_energy_mj) return std::nullopt;
    return *result.total_energy_mj / 1000.0 / static_cast<double>(*count);
  };
  result.joules_per_minibatch = per_unit(result.minibatches);
  result.joules_per_sample = per_unit(result.samples);
  return result;
}

WindowEnergy window_energy(const PowerTrace& trace, std::string name, std::int64_t begin_ns, std::int64_t end_ns,
                           const WindowEnergyOptions& options) {
  WindowEnergy result;
  result.name = std::move(name);
  result.begin_ns = begin_ns;
  result.end_ns = end_ns;
  result.duration_ns = end_ns - begin_ns;
  result.total = total_definition(trace);
  for (std::size_t c = 0; c < trace.channel_count(); ++c) {
    RailEnergy rail;
    rail.name = trace.channel(c).name;
    rail.role = trace.channel(c).role;
    rail.energy = integrate(trace, c, begin_ns, end_ns,
                            trace.channel(c).from_counter ? Integration::kBackwardRectangle : options.method);
    if (rail.energy.energy_mj && rail.energy.covered_ns > 0) {
      rail.mean_power_mw = *rail.energy.energy_mj * 1e9 / static_cast<double>(rail.energy.covered_ns);
    }
    result.rails.push_back(std::move(rail));
  }
  if (!result.total.channels.empty()) {
    double total = 0.0;
    bool complete = true;
    for (std::size_t c : result.total.channels) {
      const auto& energy = result.rails[c].energy;
      if (!energy.energy_mj || !energy.complete) complete = false;
      else total += *energy.energy_mj;
    }
    if (complete) result.total_energy_mj = total;
  }
  if (options.baseload != nullptr) {
    if (options.baseload->total.label != result.total.label) {
      throw std::invalid_argument(fmt::format(
          "window '{}': baseload total is '{}' but the window total is '{}'; measure both on the same rails",
          result.name, options.baseload->total.label, result.total.label));
    }
    result.baseload_power_mw = options.baseload->total_power_mw;
    if (result.total_energy_mj && result.baseload_power_mw) {
      result.incremental_energy_mj =
          *result.total_energy_mj - *result.baseload_power_mw * static_cast<double>(result.duration_ns) / 1e9;
    }
  }
  return result;
}

}  // namespace jetchar::jetson::energy
