// The power mode a run really ran in, read back from the board (jetson::BoardInfo discovered
// after the mode was applied, and again after the run): which cores are online, each cluster's
// limits, the GPU's and the EMC's clocks. A sweep records it as the run's resolved mode, refuses
// a run whose board is not in the requested mode, and one whose mode changed while it ran (a
// thermal cap, nvpmodel, another process), naming the difference.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "jetson/discovery/board_info.h"
#include "proto/experiment_spec.pb.h"

namespace jetchar::experiments {

/// Writes into `resolved` the knobs the board shows: cores online, the highest limit of the
/// clusters that have online cores (MHz), the GPU's limit and the EMC's rate, and a discrete GPU's
/// power limit as NVML reports it when the spec sets one. Presets get them too, so that analysis
/// fits and predicts over what ran.
void record_resolved_knobs(const jetson::BoardInfo& board, proto::DeviceSpec& resolved);

/// Where the board is not in the mode `requested` asks for: the number of online cores, pinned
/// (DVFS off) CPU and GPU clocks at min = max = the asked frequency, the asked limits, and the
/// EMC at the asked rate (pinned) or cap. A
/// snapped request (snap_to_available) is checked for pinning, not for its frequency. Empty when
/// the board is in the mode.
/// With the mode the nvpmodel status file names (`nvpmodel_mode`, when the board has one), a preset
/// is checked against it; a fan asked at maximum against every fan's PWM; an NVML power limit
/// against the limit NVML reports (when discovery opened NVML: this host).
std::vector<std::string> differences_from_request(const proto::DeviceSpec& requested, const jetson::BoardInfo& board,
                                                  std::optional<int> nvpmodel_mode = std::nullopt);

/// What changed between two read-backs: online cores, each cluster's and the GPU's limits and
/// governor, the EMC cap, lock and locked rate. Other current rates are not compared: under DVFS they move by design,
/// and a rail-gated GPU reads 0 (nvidia.ko) while pinned. A fan that `requested` pinned at maximum is compared too (one
/// the board drives moves by design), and every NVML GPU's power limit (another process or nvidia-smi -pl may change
/// it).
std::vector<std::string> changes_between(const jetson::BoardInfo& before, const jetson::BoardInfo& after,
                                         const proto::DeviceSpec& requested = {});

/// The mode id /var/lib/nvpmodel/status names; nullopt on a board without one, or unreadable.
std::optional<int> nvpmodel_mode_now(const sysfs::Root& root);

}  // namespace jetchar::experiments
