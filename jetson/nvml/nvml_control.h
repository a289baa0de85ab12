// NVML's control knobs as journalled controls: the power limit, locked GPU clocks and locked
// memory clocks of a GPU, named in the change journal as "nvml:<uuid>/<knob>" (the UUID, not the
// index, which may change between boots) and written through NVML (sysfs/external_attribute.h).
// The original is durable in the journal before NVML is asked to change anything, so `jetchar
// device restore` puts it back after a SIGKILL, as for a sysfs write. The driver resets every one
// of them at boot: a knob journalled in an earlier boot is dropped at restore, not written back
// (sysfs/change_journal.h), so the boot-time restore unit needs no access to the GPU.
//
// Values in the journal: power_limit_mw as decimal milliwatts; *_locked_clocks_mhz as "MIN,MAX"
// or "reset". NVML can set locked clocks but has no call that reports them (nvml.h), so their
// original is recorded as "reset" (the state the driver starts in, and the one
// nvmlDevice*LockedClocks reset returns to) and a lock is checked by the call's result.
//
// NVML's Set calls need root (nvml.h: "Requires root/admin permissions"). Before the first write
// to a knob, the knob is set to the value it already has (the power limit) or reset (locked
// clocks, whose original is recorded as reset anyway): a caller without permission gets
// NVML_ERROR_NO_PERMISSION there, with nothing journalled and nothing changed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "jetson/nvml/nvml_library.h"
#include "sysfs/change_journal.h"

namespace jetchar::jetson {

enum class NvmlKnob { kPowerLimit, kGpuLockedClocks, kMemoryLockedClocks };

/// "nvml:GPU-…/power_limit_mw", "nvml:GPU-…/gpu_locked_clocks_mhz", "nvml:GPU-…/memory_locked_clocks_mhz".
std::string nvml_control_path(const std::string& uuid, NvmlKnob knob);

/// What a run asks of one GPU (unset: left as it is).
struct NvmlSettings {
  unsigned int gpu_index = 0;
  std::optional<double> power_limit_w;
  std::optional<NvmlClockRange> gpu_locked_clocks_mhz;
  std::optional<NvmlClockRange> memory_locked_clocks_mhz;
  bool empty() const { return !power_limit_w && !gpu_locked_clocks_mhz && !memory_locked_clocks_mhz; }
};

struct NvmlWrite {
  std::string path;
  std::string value;
  std::string description;  ///< "GPU 0 (GPU-…) power limit 200 W"
};

/// Checks `settings` against the GPU (the power limit within nvmlDeviceGetPowerManagementLimit-
/// Constraints, locked clocks within the supported clock tables) and returns the journal writes.
/// Throws std::invalid_argument naming the value and what is valid, std::runtime_error when NVML
/// cannot answer (absent, NotSupported on this GPU).
std::vector<NvmlWrite> plan_nvml_writes(const NvmlLibrary& nvml, const NvmlSettings& settings);

/// Applies planned writes through `journal` (probe, journal, write; see the header comment).
/// Throws std::runtime_error naming the knob and NVML's error; a refused probe changes nothing.
void apply_nvml_writes(const NvmlLibrary& nvml, sysfs::ChangeJournal& journal, const std::vector<NvmlWrite>& writes);

/// Registers the "nvml:" controls with the change journal for this process (idempotent). The
/// library is opened at the first read or write of such a control (NvmlLibrary::library_path).
void register_nvml_controls();

/// "1200,1500" → {1200, 1500}. Throws std::invalid_argument naming `what` for other text.
NvmlClockRange parse_clock_range(const std::string& text, const std::string& what);

}  // namespace jetchar::jetson
