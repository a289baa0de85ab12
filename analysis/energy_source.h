// Which energy an analysis judges runs by: the board's own sensors (a Jetson's INA rails, a
// desktop GPU's NVML counter: each run's context.energy_source) or the external meter the run's
// spec configured (measurement.meters; at the wall, as the RTX-versus-AGX write-up measured). A
// comparison of a Jetson's rails with a desktop card's NVML counter compares two different
// boundaries (module or board input against the GPU alone); the wall meter puts both boards behind
// one boundary.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/run_record.h"

namespace jetchar::analysis {

enum class EnergySource { kBoard, kMeter };

std::string_view to_string(EnergySource source);  ///< "board", "meter"
/// "board" or "meter"; nullopt otherwise.
std::optional<EnergySource> parse_energy_source(std::string_view text);

/// Makes `source` the energy every record's figures carry. kBoard leaves them as they are. kMeter
/// puts each epoch's meter energy and average power (metrics meter_energy_j, meter_avg_power_w) in
/// their place and leaves a record without them with no energy at all (never the board's in its
/// place: one analysis never mixes the two boundaries); an inference run's energy per query, which
/// no meter window covers, is dropped. Throws std::invalid_argument when no OK record has a meter's
/// energy, saying how a run gets one.
void use_energy_source(std::vector<RunRecord>& records, EnergySource source);

/// What each board kind's energy comes from in `records` (as board_kind_of names kinds): its
/// energy_source names under kBoard, "meter <protocol:device>" under kMeter; "not measured" for a
/// kind whose records name none.
std::map<std::string, std::set<std::string>> energy_sources_by_kind(const std::vector<RunRecord>& records,
                                                                    EnergySource source);

/// "KIND: SOURCE[, SOURCE]; KIND: ..." of energy_sources_by_kind, for a line under a table.
std::string energy_sources_text(const std::map<std::string, std::set<std::string>>& sources);

}  // namespace jetchar::analysis
