// Energy of a measurement window: per rail, the board total (labelled board input or module
// sum), the incremental energy above a baseload, and joules per minibatch and per sample.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jetson/energy/baseload.h"
#include "jetson/energy/energy_integrator.h"
#include "jetson/energy/measurement_windows.h"
#include "jetson/energy/power_trace.h"

namespace jetchar::jetson::energy {

struct RailEnergy {
  std::string name;
  RailRole role = RailRole::kModule;
  ChannelEnergy energy;
  std::optional<double> mean_power_mw;
};

struct WindowEnergy {
  std::string name;
  std::int64_t begin_ns = 0;
  std::int64_t end_ns = 0;
  std::int64_t duration_ns = 0;
  std::vector<RailEnergy> rails;
  TotalDefinition total;
  /// nullopt when a rail of the total has no data or does not cover the whole window.
  std::optional<double> total_energy_mj;
  std::optional<double> baseload_power_mw;
  /// total − baseload × duration.
  std::optional<double> incremental_energy_mj;
  std::optional<std::uint64_t> minibatches;
  std::optional<std::uint64_t> samples;
  std::optional<double> joules_per_minibatch;
  std::optional<double> joules_per_sample;
};

struct WindowEnergyOptions {
  Integration method = Integration::kTrapezoid;
  /// Idle power to subtract; its total must be defined the same way as the window's.
  const Baseload* baseload = nullptr;
};

/// Throws std::invalid_argument when the window is still open.
WindowEnergy window_energy(const PowerTrace& trace, const Window& window, const WindowEnergyOptions& options = {});
WindowEnergy window_energy(const PowerTrace& trace, std::string name, std::int64_t begin_ns, std::int64_t end_ns,
                           const WindowEnergyOptions& options = {});

}  // namespace jetchar::jetson::energy
