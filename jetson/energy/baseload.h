// Idle (baseload) power: measured over a window in the same power mode, clocks and fan state as
// the workload, then subtracted to get incremental energy (total − baseload × time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jetson/energy/energy_integrator.h"
#include "jetson/energy/power_trace.h"

namespace jetchar::jetson::energy {

struct RailBaseload {
  std::string name;
  RailRole role = RailRole::kModule;
  /// Time-weighted mean (energy / covered time); nullopt when the rail had no valid sample.
  std::optional<double> mean_power_mw;
  /// Spread of the sample values inside the window (population standard deviation, min, max).
  std::optional<double> stddev_mw;
  std::optional<double> min_mw;
  std::optional<double> max_mw;
  std::size_t samples = 0;
};

/// Which channels make up a board total, and how to label it.
struct TotalDefinition {
  enum class Source { kBoardInput, kModuleSum, kNone } source = Source::kNone;
  std::vector<std::size_t> channels;
  /// "board input VDD_IN" or "sum of module rails (VDD_GPU_SOC + VDD_CPU_CV + VIN_SYS_5V0)".
  std::string label;
};

/// The board input channels where the trace has any, otherwise every module rail.
TotalDefinition total_definition(const PowerTrace& trace);

struct Baseload {
  std::int64_t begin_ns = 0;
  std::int64_t end_ns = 0;
  std::vector<RailBaseload> rails;
  TotalDefinition total;
  std::optional<double> total_power_mw;

  /// Mean idle power of the rail called `name`, if measured.
  std::optional<double> rail_power_mw(const std::string& name) const;
};

/// Baseload over [begin_ns, end_ns]. Throws std::invalid_argument when the window is empty.
Baseload measure_baseload(const PowerTrace& trace, std::int64_t begin_ns, std::int64_t end_ns,
                          Integration method = Integration::kTrapezoid);

}  // namespace jetchar::jetson::energy
