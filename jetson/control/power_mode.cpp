#include "jetson/control/power_mode.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "jetson/control/nvpmodel_tool.h"
#include "sysfs/attribute.h"
#include "sysfs/cpu_list.h"
#include "sysfs/error.h"

namespace jetchar::jetson {
namespace {

constexpr std::int64_t kKhzPerMhz = 1000;
constexpr std::int64_t kHzPerMhz = 1000000;

std::string line(std::int64_t value) { return std::to_string(value) + "\n"; }

std::optional<std::int64_t> read_current(const sysfs::Root& root, const std::string& path) {
  return sysfs::try_read_int(root, path);
}

std::string list_mhz(const std::vector<std::int64_t>& values, std::int64_t units_per_mhz) {
  std::string out;
  for (const auto v : values) out += (out.empty() ? "" : " ") + format_mhz(v, units_per_mhz);
  return out;
}

// The original (pre-jetchar) value of an attribute when the journal has it, else the current one.
std::optional<std::string> original_value(const sysfs::Root& root, const sysfs::ChangeJournal* journal,
                                          const std::string& path) {
  if (journal != nullptr) {
    const std::string canonical = root.canonical(path);
    for (const auto& entry : journal->entries()) {
      if (entry.path != canonical) continue;
      std::string value = entry.original;
      while (!value.empty() && (value.back() == '\n' || value.back() == ' ')) value.pop_back();
      return value;
    }
  }
  return sysfs::try_read_string(root, path);
}

// Resolves a requested frequency against the board's list: exact, or nearest with `snap`.
std::int64_t choose_frequency(const std::vector<std::int64_t>& available, std::int64_t requested, bool snap,
                              const std::string& what, const std::string& device, std::int64_t units_per_mhz,
                              const std::string& typed, std::vector<std::string>& notes) {
  if (available.empty()) {
    notes.push_back(
        fmt::format("{} on {}: the board lists no available frequencies; {} MHz not validated", what, device, typed));
    return requested;
  }
  if (std::find(available.begin(), available.end(), requested) != available.end()) return requested;
  if (!snap) {
    throw std::invalid_argument(
        fmt::format("{} frequency {} MHz is not available on {}; available: {} (or pass "
                    "--snap for the nearest)",
                    what, typed, device, list_mhz(available, units_per_mhz)));
  }
  std::int64_t best = available.front();
  for (const auto v : available) {
    if (std::llabs(v - requested) < std::llabs(best - requested)) best = v;
  }
  notes.push_back(
      fmt::format("{} on {}: {} MHz snapped to {} MHz", what, device, typed, format_mhz(best, units_per_mhz)));
  return best;
}

// Appends the writes that move a [min, max] pair to its target while min <= max holds after
// every single write: raising (the new max is not below the current min) writes max first,
// lowering writes min first.
void emit_min_max(PowerModePlan& plan, const std::string& what, const std::string& min_path,
                  const std::string& max_path, std::int64_t new_min, std::int64_t new_max,
                  std::optional<std::int64_t> cur_min, std::optional<std::int64_t> cur_max, std::int64_t units) {
  const PlannedWrite max_write{max_path, line(new_max), fmt::format("{} max {} MHz", what, format_mhz(new_max, units))};
  const PlannedWrite min_write{min_path, line(new_min), fmt::format("{} min {} MHz", what, format_mhz(new_min, units))};
  const bool max_changes = cur_max != new_max;
  const bool min_changes = cur_min != new_min;
  if (!cur_min || new_max >= *cur_min) {
    if (max_changes) plan.writes.push_back(max_write);
    if (min_changes) plan.writes.push_back(min_write);
  } else {
    if (min_changes) plan.writes.push_back(min_write);
    if (max_changes) plan.writes.push_back(max_write);
  }
}

// The [min, max] a DVFS setting leads to for a clock whose requested top is `target`.
struct Range {
  std::int64_t min;
  std::int64_t max;
};

Range dvfs_range(std::optional<DvfsSetting> dvfs, std::optional<std::int64_t> target, std::int64_t cur_min,
                 std::int64_t cur_max, std::optional<std::int64_t> original_min, std::int64_t lowest) {
  const std::int64_t top = target.value_or(cur_max);
  if (dvfs == DvfsSetting::kOff) return {top, top};
  std::int64_t floor = cur_min;
  if (dvfs == DvfsSetting::kOn) {
    floor = original_min.value_or(lowest);
    if (floor == top && original_min && *original_min == cur_min && cur_min == cur_max) floor = lowest;
  } else if (cur_min == cur_max && target) {
    floor = top;  // already pinned and DVFS not mentioned: stay pinned at the new frequency
  }
  if (floor > top) floor = lowest;
  return {std::min(floor, top), top};
}

std::optional<std::int64_t> parse_original_int(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  try {
    return sysfs::parse_int(*text, "original value");
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Discovery ran once, and a mode applied since may have taken cores offline or brought them
// back: plans start from which cores are online now (a sweep's 12-core run after a 4-core run
// kept cores 4-11 offline when the plan trusted discovery's snapshot).
DeviceControls as_now(const sysfs::Root& root, const DeviceControls& discovered) {
  DeviceControls now = discovered;
  for (auto& core : now.cores) {
    if (!core.online_path) continue;
    if (const auto value = sysfs::try_read_string(root, *core.online_path)) core.online = *value == "1";
  }
  return now;
}

}  // namespace

bool CustomPowerMode::empty() const {
  return !cpu_cores && !cpu_freq_mhz && cluster_freq_mhz.empty() && !gpu_freq_mhz && !emc_freq_mhz && !dvfs &&
         !disable_cpu_idle && !gpu_railgate && !fan;
}

std::string CustomPowerMode::describe() const {
  std::vector<std::string> parts;
  if (cpu_cores) parts.push_back(fmt::format("{} CPU cores", *cpu_cores));
  if (cpu_freq_mhz) parts.push_back(fmt::format("CPU {} MHz", *cpu_freq_mhz));
  for (const auto& [policy, mhz] : cluster_freq_mhz) parts.push_back(fmt::format("{} {} MHz", policy, mhz));
  if (gpu_freq_mhz) parts.push_back(fmt::format("GPU {} MHz", *gpu_freq_mhz));
  if (emc_freq_mhz) parts.push_back(fmt::format("EMC {} MHz", *emc_freq_mhz));
  if (dvfs) parts.push_back(*dvfs == DvfsSetting::kOn ? "DVFS on" : "DVFS off");
  if (disable_cpu_idle) parts.push_back("CPU idle states off");
  if (gpu_railgate) parts.push_back(*gpu_railgate ? "GPU rail-gating on" : "GPU rail-gating off");
  if (fan) parts.push_back(*fan == FanSetting::kMax ? "fan max" : "fan default");
  return parts.empty() ? "no change" : fmt::format("{}", fmt::join(parts, ", "));
}

std::int64_t parse_mhz(const std::string& text, std::int64_t units_per_mhz, const std::string& what) {
  size_t used = 0;
  double mhz = 0;
  bool ok = !text.empty() && (std::isdigit(static_cast<unsigned char>(text.front())) != 0);
  if (ok) {
    try {
      mhz = std::stod(text, &used);
    } catch (const std::exception&) {
      ok = false;
    }
  }
  if (!ok || used != text.size() || !(mhz > 0) || mhz > 1e6) {
    throw std::invalid_argument(
        fmt::format("{} frequency '{}' is not a frequency in MHz (expected e.g. 1420.8)", what, text));
  }
  return std::llround(mhz * static_cast<double>(units_per_mhz));
}

std::string format_mhz(std::int64_t value, std::int64_t units_per_mhz) {
  std::string text = fmt::format("{}", value / units_per_mhz);
  std::int64_t fraction = std::llabs(value % units_per_mhz);
  if (fraction != 0) {
    int digits = 0;
    for (std::int64_t u = units_per_mhz; u > 1; u /= 10) ++digits;
    std::string decimals = fmt::format("{:0{}}", fraction, digits);
    while (!decimals.empty() && decimals.back() == '0') decimals.pop_back();
    text += "." + decimals;
  }
  return text;
}

namespace {

/// What a custom power mode is planned from; each plan_* below adds its part's writes, notes and
/// settle checks to the plan, in the order they must be applied.
struct CustomModeRequest {
  const sysfs::Root& root;
  const DeviceControls& controls;  ///< as the board is now (as_now)
  const CustomPowerMode& mode;
  bool snap;
  const sysfs::ChangeJournal* journal;
};

/// Which cores end online (`cores` sorted by number), and the writes that bring cores online:
/// first, so that the clusters they belong to can be set.
std::set<int> plan_cores_online(const CustomModeRequest& request, const std::vector<CpuCoreControl>& cores,
                                PowerModePlan& plan) {
  const CustomPowerMode& mode = request.mode;
  std::set<int> target_online;
  for (const auto& core : cores) {
    if (core.online) target_online.insert(core.cpu);
  }
  if (mode.cpu_cores) {
    const int n = *mode.cpu_cores;
    std::vector<int> all;
    for (const auto& c : cores) all.push_back(c.cpu);
    if (n < 1) {
      throw std::invalid_argument(
          fmt::format("--cpu-cores {} is not possible: CPU0 never goes offline, so at least 1 core stays online", n));
    }
    if (n > static_cast<int>(cores.size())) {
      throw std::invalid_argument(fmt::format("--cpu-cores {} exceeds the {} CPU cores of this board ({})", n,
                                              cores.size(), sysfs::format_cpu_list(all)));
    }
    target_online.clear();
    for (int i = 0; i < n; ++i) target_online.insert(cores[static_cast<size_t>(i)].cpu);
    if (target_online.count(0) == 0)
      throw std::invalid_argument("CPU0 never goes offline, but this board lists no CPU0");
    for (const auto& core : cores) {
      const bool want = target_online.count(core.cpu) != 0;
      if (want != core.online && !core.online_path) {
        throw std::invalid_argument(fmt::format("cpu{} cannot be brought {}: it has no online attribute", core.cpu,
                                                want ? "online" : "offline"));
      }
    }
  }
  for (const auto& core : cores) {
    if (target_online.count(core.cpu) != 0 && !core.online && core.online_path) {
      plan.writes.push_back({*core.online_path, "1\n", fmt::format("cpu{} online", core.cpu)});
    }
  }
  return target_online;
}

void plan_idle_states(const CustomModeRequest& request, const std::vector<CpuCoreControl>& cores,
                      const std::set<int>& target_online, PowerModePlan& plan) {
  const sysfs::Root& root = request.root;
  bool any = false;
  for (const auto& core : cores) {
    if (target_online.count(core.cpu) == 0) continue;
    for (const auto& path : core.idle_disable_paths) {
      any = true;
      if (sysfs::try_read_string(root, path) != "1") {
        plan.writes.push_back({path, "1\n", fmt::format("cpu{} idle state off", core.cpu)});
      }
    }
  }
  if (!any) throw std::invalid_argument("CPU idle states cannot be disabled: this board has no cpuidle states");
}

/// Each cluster's frequency limits and governor; clusters whose cores all end offline are noted.
void plan_cpu_clusters(const CustomModeRequest& request, const std::set<int>& target_online, PowerModePlan& plan) {
  const sysfs::Root& root = request.root;
  const DeviceControls& controls = request.controls;
  const CustomPowerMode& mode = request.mode;
  for (const auto& entry : mode.cluster_freq_mhz) {
    const std::string& policy = entry.first;  // a named copy: lambdas cannot capture bindings in clang 14
    if (std::none_of(controls.clusters.begin(), controls.clusters.end(),
                     [&](const auto& c) { return c.name == policy; })) {
      std::string names;
      for (const auto& c : controls.clusters) names += (names.empty() ? "" : ", ") + c.name;
      throw std::invalid_argument(fmt::format("no CPU cluster {} on this board; clusters: {}", policy,
                                              names.empty() ? "none (no cpufreq)" : names));
    }
  }
  const bool cpu_freq_requested = mode.cpu_freq_mhz || !mode.cluster_freq_mhz.empty();
  if ((cpu_freq_requested || mode.dvfs) && controls.clusters.empty() && cpu_freq_requested) {
    throw std::invalid_argument("CPU frequency cannot be set: this board has no cpufreq policies");
  }
  for (const auto& cluster : controls.clusters) {
    const auto requested_text = mode.cluster_freq_mhz.count(cluster.name) != 0
                                    ? std::optional<std::string>(mode.cluster_freq_mhz.at(cluster.name))
                                    : mode.cpu_freq_mhz;
    const std::string device = fmt::format("{} (cpu {})", cluster.name, sysfs::format_cpu_list(cluster.cpus));
    std::optional<std::int64_t> target;
    if (requested_text) {
      target = choose_frequency(cluster.available_khz, parse_mhz(*requested_text, kKhzPerMhz, "CPU"), request.snap,
                                "CPU", device, kKhzPerMhz, *requested_text, plan.notes);
    }
    const bool active =
        std::any_of(cluster.cpus.begin(), cluster.cpus.end(), [&](int cpu) { return target_online.count(cpu) != 0; });
    if (!active) {
      if (target || mode.dvfs) plan.notes.push_back(fmt::format("{}: all its cores are offline; not set", device));
      continue;
    }
    if (!target && !mode.dvfs) continue;
    const auto cur_min = read_current(root, cluster.attribute("scaling_min_freq"));
    const auto cur_max = read_current(root, cluster.attribute("scaling_max_freq"));
    if (!cur_min || !cur_max) {
      const bool offline_now = std::none_of(cluster.cpus.begin(), cluster.cpus.end(), [&](int cpu) {
        return std::any_of(controls.cores.begin(), controls.cores.end(),
                           [&](const CpuCoreControl& core) { return core.cpu == cpu && core.online; });
      });
      if (!offline_now) throw std::invalid_argument(fmt::format("{} has no readable scaling_min/max_freq", device));
      // The cluster comes back online in this mode, and until then its policy is inactive: Linux
      // >= 5.19 answers every file of it with EBUSY (cpufreq.c show()/store()). Its limits are
      // written after its cores' online writes, max first; cpufreq_verify_within_limits() keeps
      // min <= max whatever the order, so no current value is needed.
      const std::optional<std::int64_t> top =
          target ? target
                 : (cluster.available_khz.empty() ? std::nullopt : std::optional(cluster.available_khz.back()));
      if (!top) {
        plan.notes.push_back(fmt::format(
            "{}: its limits cannot be read while all its cores are offline; left as the kernel keeps them", device));
        continue;
      }
      std::optional<std::int64_t> floor;
      if (mode.dvfs == DvfsSetting::kOff) floor = top;
      if (mode.dvfs == DvfsSetting::kOn) {
        floor = parse_original_int(original_value(root, request.journal, cluster.attribute("scaling_min_freq")));
        if (!floor && !cluster.available_khz.empty()) floor = cluster.available_khz.front();
        if (floor && *floor > *top) floor = top;
      }
      plan.notes.push_back(
          fmt::format("{}: its limits cannot be read while all its cores are offline; written once "
                      "they are online",
                      device));
      plan.writes.push_back({cluster.attribute("scaling_max_freq"), line(*top),
                             fmt::format("{} max {} MHz", cluster.name, format_mhz(*top, kKhzPerMhz))});
      if (floor) {
        plan.writes.push_back({cluster.attribute("scaling_min_freq"), line(*floor),
                               fmt::format("{} min {} MHz", cluster.name, format_mhz(*floor, kKhzPerMhz))});
      }
      plan.settle.push_back({fmt::format("{} frequency", cluster.name), cluster.attribute("scaling_cur_freq"),
                             floor.value_or(0), *top, floor == top});
      continue;
    }
    const std::int64_t lowest = cluster.available_khz.empty() ? *cur_min : cluster.available_khz.front();
    const auto original_min =
        parse_original_int(original_value(root, request.journal, cluster.attribute("scaling_min_freq")));
    const Range range = dvfs_range(mode.dvfs, target, *cur_min, *cur_max, original_min, lowest);
    if (mode.dvfs == DvfsSetting::kOn) {
      const auto original = original_value(root, request.journal, cluster.attribute("scaling_governor"));
      std::string governor = original.value_or("");
      if (std::find(cluster.governors.begin(), cluster.governors.end(), "schedutil") != cluster.governors.end()) {
        governor = "schedutil";
      }
      if (!governor.empty() && sysfs::try_read_string(root, cluster.attribute("scaling_governor")) != governor) {
        plan.writes.push_back({cluster.attribute("scaling_governor"), governor + "\n",
                               fmt::format("{} governor {}", cluster.name, governor)});
      }
    }
    emit_min_max(plan, cluster.name, cluster.attribute("scaling_min_freq"), cluster.attribute("scaling_max_freq"),
                 range.min, range.max, cur_min, cur_max, kKhzPerMhz);
    plan.settle.push_back({fmt::format("{} frequency", cluster.name), cluster.attribute("scaling_cur_freq"), range.min,
                           range.max, range.min == range.max});
  }
}

/// The GPU's devfreq limits, governor and railgating, when the mode asks for any of them.
void plan_gpu(const CustomModeRequest& request, PowerModePlan& plan) {
  const sysfs::Root& root = request.root;
  const DeviceControls& controls = request.controls;
  const CustomPowerMode& mode = request.mode;
  if (!(mode.gpu_freq_mhz || mode.gpu_railgate || (mode.dvfs && controls.gpu))) return;
  if (!controls.gpu) throw std::invalid_argument("GPU settings cannot be applied: no GPU devfreq node was found");
  const GpuControl& gpu = *controls.gpu;
  std::optional<std::int64_t> target;
  if (mode.gpu_freq_mhz) {
    target = choose_frequency(gpu.available_hz, parse_mhz(*mode.gpu_freq_mhz, kHzPerMhz, "GPU"), request.snap, "GPU",
                              gpu.name, kHzPerMhz, *mode.gpu_freq_mhz, plan.notes);
  }
  if (mode.gpu_railgate) {
    if (!gpu.railgate_path) throw std::invalid_argument(fmt::format("{} has no railgate_enable attribute", gpu.name));
    const std::string value = *mode.gpu_railgate ? "1" : "0";
    if (sysfs::try_read_string(root, *gpu.railgate_path) != value) {
      plan.writes.push_back({*gpu.railgate_path, value + "\n", fmt::format("GPU railgate_enable {}", value)});
    }
  }
  if (target || mode.dvfs) {
    const auto cur_min = read_current(root, gpu.attribute("min_freq"));
    const auto cur_max = read_current(root, gpu.attribute("max_freq"));
    if (!cur_min || !cur_max) throw std::invalid_argument(fmt::format("{} has no readable min/max_freq", gpu.name));
    const std::int64_t lowest = gpu.available_hz.empty() ? *cur_min : gpu.available_hz.front();
    const auto original_min = parse_original_int(original_value(root, request.journal, gpu.attribute("min_freq")));
    const Range range = dvfs_range(mode.dvfs, target, *cur_min, *cur_max, original_min, lowest);
    if (mode.dvfs == DvfsSetting::kOn) {
      const auto original = original_value(root, request.journal, gpu.attribute("governor"));
      std::string governor = original.value_or("");
      if (std::find(gpu.governors.begin(), gpu.governors.end(), "nvhost_podgov") != gpu.governors.end()) {
        governor = "nvhost_podgov";
      }
      if (!governor.empty() && sysfs::try_read_string(root, gpu.attribute("governor")) != governor) {
        plan.writes.push_back({gpu.attribute("governor"), governor + "\n", fmt::format("GPU governor {}", governor)});
      }
    }
    emit_min_max(plan, "GPU", gpu.attribute("min_freq"), gpu.attribute("max_freq"), range.min, range.max, cur_min,
                 cur_max, kHzPerMhz);
    plan.settle.push_back({"GPU frequency", gpu.attribute("cur_freq"), range.min, range.max, range.min == range.max});
  }
}

/// The EMC, when the mode asks for it: pinned through devfreq (bwmgr) or the debugfs rate lock, or
/// capped through nvpmodel.
void plan_emc(const CustomModeRequest& request, PowerModePlan& plan) {
  const sysfs::Root& root = request.root;
  const DeviceControls& controls = request.controls;
  const CustomPowerMode& mode = request.mode;
  if (!(mode.emc_freq_mhz || (mode.dvfs && controls.emc))) return;
  if (!controls.emc) throw std::invalid_argument("EMC frequency cannot be set: no EMC interface was found");
  const EmcControl& emc = *controls.emc;
  std::optional<std::int64_t> target;
  if (mode.emc_freq_mhz) {
    const std::int64_t requested = parse_mhz(*mode.emc_freq_mhz, kHzPerMhz, "EMC");
    if (!emc.available_hz.empty()) {
      target = choose_frequency(emc.available_hz, requested, request.snap, "EMC", "the EMC (BPMP table)", kHzPerMhz,
                                *mode.emc_freq_mhz, plan.notes);
    } else if (emc.max_hz && requested > *emc.max_hz) {
      throw std::invalid_argument(fmt::format("EMC frequency {} MHz exceeds the EMC maximum {} MHz", *mode.emc_freq_mhz,
                                              format_mhz(*emc.max_hz, kHzPerMhz)));
    } else {
      target = requested;
      plan.notes.push_back(fmt::format("EMC {} MHz not validated against the BPMP table ({})", *mode.emc_freq_mhz,
                                       emc.note.value_or("no table readable")));
    }
  }
  const bool pin = mode.dvfs == DvfsSetting::kOff;
  if (emc.devfreq_path && (pin || mode.dvfs == DvfsSetting::kOn)) {
    // A devfreq EMC (bwmgr) is pinned and released like the GPU: through its min/max.
    const std::string min_path = *emc.devfreq_path + "/min_freq";
    const std::string max_path = *emc.devfreq_path + "/max_freq";
    const auto cur_min = read_current(root, min_path);
    const auto cur_max = read_current(root, max_path);
    if (!cur_min || !cur_max)
      throw std::invalid_argument(fmt::format("{} has no readable min/max_freq", *emc.devfreq_path));
    const std::int64_t lowest = emc.available_hz.empty() ? *cur_min : emc.available_hz.front();
    const auto original_min = parse_original_int(original_value(root, request.journal, min_path));
    const Range range = dvfs_range(mode.dvfs, target, *cur_min, *cur_max, original_min, lowest);
    emit_min_max(plan, "EMC", min_path, max_path, range.min, range.max, cur_min, cur_max, kHzPerMhz);
    if (emc.rate_path)
      plan.settle.push_back({"EMC rate", *emc.rate_path, range.min, range.max, range.min == range.max});
  } else {
    if (pin && !target) {
      // jetson_clocks pins EMC at its maximum, or at the nvpmodel cap when that is lower.
      const auto cap = emc.cap_path ? read_current(root, *emc.cap_path) : std::nullopt;
      const auto top = emc.available_hz.empty() ? emc.max_hz : std::optional<std::int64_t>(emc.available_hz.back());
      if (top) target = (cap && *cap > 0) ? std::min(*cap, *top) : *top;
    }
    if (pin && !mode.emc_freq_mhz && (!emc.set_rate_path || !emc.lock_path || !target)) {
      // DVFS off for the board at large: EMC stays scaling where it cannot be pinned.
      plan.notes.push_back(
          fmt::format("EMC not pinned: {}", emc.note.value_or("no writable EMC rate/lock in debugfs")));
    } else if (pin) {
      if (!emc.set_rate_path || !emc.lock_path || !target) {
        throw std::invalid_argument(fmt::format("EMC cannot be pinned (DVFS off) on this board: {}",
                                                emc.note.value_or("no writable EMC rate/lock in debugfs")));
      }
      if (emc.cap_path && read_current(root, *emc.cap_path) != *target) {
        plan.writes.push_back(
            {*emc.cap_path, line(*target), fmt::format("EMC cap {} MHz", format_mhz(*target, kHzPerMhz))});
      }
      if (sysfs::try_read_string(root, *emc.lock_path) != "1") {
        plan.writes.push_back({*emc.lock_path, "1\n", "EMC rate lock"});
      }
      plan.writes.push_back(
          {*emc.set_rate_path, line(*target), fmt::format("EMC rate {} MHz", format_mhz(*target, kHzPerMhz))});
      if (emc.rate_path) plan.settle.push_back({"EMC rate", *emc.rate_path, *target, *target, true});
    } else {
      if (mode.dvfs == DvfsSetting::kOn && emc.lock_path && sysfs::try_read_string(root, *emc.lock_path) == "1") {
        plan.writes.push_back({*emc.lock_path, "0\n", "EMC rate unlock"});
      }
      if (target) {
        if (!emc.cap_path) {
          throw std::invalid_argument(
              "EMC frequency cannot be capped: this board has no nvpmodel EMC cap node "
              "(pass --dvfs off to pin it instead)");
        }
        if (read_current(root, *emc.cap_path) != *target) {
          plan.writes.push_back(
              {*emc.cap_path, line(*target), fmt::format("EMC cap {} MHz", format_mhz(*target, kHzPerMhz))});
        }
        if (emc.rate_path) plan.settle.push_back({"EMC rate", *emc.rate_path, 0, *target, false});
      }
    }
  }
}

void plan_fan(const CustomModeRequest& request, PowerModePlan& plan) {
  const sysfs::Root& root = request.root;
  const DeviceControls& controls = request.controls;
  if (controls.fans.empty()) throw std::invalid_argument("--fan max: this board has no fan control");
  for (const auto& fan : controls.fans) {
    if (fan.mode_path) {
      const std::string manual = fan.mode_is_temp_control ? "0" : "1";
      if (sysfs::try_read_string(root, *fan.mode_path) != manual) {
        plan.writes.push_back({*fan.mode_path, manual + "\n", "fan manual control"});
      }
    }
    if (sysfs::try_read_string(root, fan.pwm_path) != "255")
      plan.writes.push_back({fan.pwm_path, "255\n", "fan PWM 255"});
  }
  plan.notes.push_back("fan at full speed; nvfancontrol, where it runs, may take the fan back");
}

}  // namespace

PowerModePlan plan_custom_mode(const sysfs::Root& root, const DeviceControls& discovered, const CustomPowerMode& mode,
                               bool snap, const sysfs::ChangeJournal* journal) {
  const DeviceControls controls = as_now(root, discovered);
  PowerModePlan plan;
  plan.description = mode.describe();
  if (mode.empty()) throw std::invalid_argument("no setting given: nothing to change");
  const CustomModeRequest request{root, controls, mode, snap, journal};
  std::vector<CpuCoreControl> cores = controls.cores;
  std::sort(cores.begin(), cores.end(), [](const auto& a, const auto& b) { return a.cpu < b.cpu; });
  const std::set<int> target_online = plan_cores_online(request, cores, plan);
  if (mode.disable_cpu_idle) plan_idle_states(request, cores, target_online, plan);
  plan_cpu_clusters(request, target_online, plan);
  plan_gpu(request, plan);
  plan_emc(request, plan);
  if (mode.fan == FanSetting::kMax) plan_fan(request, plan);
  // Cores go offline last, once their clusters' limits are written.
  for (auto it = cores.rbegin(); it != cores.rend(); ++it) {
    if (target_online.count(it->cpu) == 0 && it->online && it->online_path) {
      plan.writes.push_back({*it->online_path, "0\n", fmt::format("cpu{} offline", it->cpu)});
    }
  }
  return plan;
}

namespace {

// Which cores an nvpmodel mode leaves online: those it lists with CPU_ONLINE 1, those online now
// that it does not list, and CPU0 always.
std::set<int> nvpmodel_target_online(const DeviceControls& controls, const PowerModel& model) {
  std::set<int> target_online;
  for (const auto& core : controls.cores) {
    if (core.online) target_online.insert(core.cpu);
  }
  for (const auto& s : model.settings) {
    if (s.param != "CPU_ONLINE" || !s.argument.starts_with("CORE_")) continue;
    const int cpu = std::atoi(s.argument.c_str() + 5);
    if (s.value == "0") {
      target_online.erase(cpu);
    } else {
      target_online.insert(cpu);
    }
  }
  target_online.insert(0);
  return target_online;
}

// TPC power gating takes effect only after a reboot; nvpmodel asks before such a switch.
void check_tpc_power_gating(const sysfs::Root& root, const NvpmodelConfig& config, const PowerModel& model,
                            bool allow_reboot, PowerModePlan& plan) {
  const ModeSetting* tpc = model.find("TPC_POWER_GATING", "TPC_PG_MASK");
  if (tpc == nullptr) return;
  const ParamArgument* argument = config.find_param(tpc->param)->find(tpc->argument);
  const auto path = existing_param_path(root, *argument);
  const auto current = path ? sysfs::try_read_string(root, *path) : std::nullopt;
  if (!current || *current == tpc->value) return;
  plan.reboot_required = true;
  if (!allow_reboot) {
    throw RebootRequired(fmt::format(
        "power mode {} ({}) changes the GPU TPC power-gating mask from {} to {}, which takes effect only after a "
        "reboot; pass --allow-reboot to switch anyway (on a real board nvpmodel then reboots it)",
        model.id, model.name, *current, tpc->value));
  }
  plan.notes.push_back(fmt::format("TPC mask {} -> {}: needs a reboot to take effect", *current, tpc->value));
}

// A FILE setting: its value written where the file exists and does not hold it already.
// `planned_files` is what the plan leaves in each file it writes (by canonical path): two settings
// may write one file, as every mode writes the GPU's power/control "on" (GPU_POWER_CONTROL_ENABLE)
// and later "auto" (GPU_POWER_CONTROL_DISABLE), and each compares with what the writes before it left.
void plan_file_setting(const sysfs::Root& root, const ModeSetting& s, const ParamArgument& argument,
                       std::map<std::string, std::string>& planned_files, PowerModePlan& plan) {
  if (s.param == "CPU_ONLINE") {
    const int cpu = std::atoi(s.argument.c_str() + 5);
    if (cpu == 0 && s.value == "0") {
      plan.notes.push_back("CPU_ONLINE CORE_0 0 ignored: CPU0 never goes offline");
      return;
    }
  }
  const auto path = existing_param_path(root, argument);
  if (!path && s.param == "CPU_ONLINE" && s.argument == "CORE_0") return;  // CPU0 has no online switch
  if (!path) {
    plan.notes.push_back(fmt::format("{} {}: {} absent on this board; skipped", s.param, s.argument, argument.path));
    return;
  }
  const std::string file = root.canonical(*path);
  const auto planned = planned_files.find(file);
  const std::optional<std::string> before = planned != planned_files.end() ? std::optional<std::string>(planned->second)
                                                                           : sysfs::try_read_string(root, *path);
  if (before == s.value) return;
  planned_files[file] = s.value;
  plan.writes.push_back({*path, s.value + "\n", fmt::format("{} {} {}", s.param, s.argument, s.value)});
}

// The CPU cluster whose cpufreq policy holds `path`, or null.
const CpuClusterControl* cluster_of(const sysfs::Root& root, const DeviceControls& controls, const std::string& path) {
  const std::string canonical = root.canonical(path);
  for (const auto& c : controls.clusters) {
    if (canonical.starts_with(root.canonical(c.policy_path) + "/")) return &c;
  }
  return nullptr;
}

// A clock's FREQ_TABLE, sorted; empty when the conf names none, the board lacks it, or it cannot
// be read now (noted in the plan).
std::vector<std::int64_t> clock_table(const sysfs::Root& root, const ParamDefinition& param, const std::string& name,
                                      PowerModePlan& plan) {
  std::vector<std::int64_t> table;
  if (const ParamArgument* table_argument = param.find("FREQ_TABLE")) {
    if (const auto table_path = existing_param_path(root, *table_argument)) {
      // A cluster this mode brings back online may not list its table yet (Linux 4.9 answers
      // ENODEV while the whole cluster is offline, >= 5.19 EBUSY): the values go as the conf
      // gives them, and cpufreq clamps them to the cluster's limits as it does nvpmodel's.
      try {
        table = sysfs::read_int_list(root, *table_path);
      } catch (const sysfs::IoError& e) {
        plan.notes.push_back(fmt::format(
            "{}: frequency table unreadable now ({}); values written as the conf gives them", name, e.what()));
      }
    }
  }
  std::sort(table.begin(), table.end());
  return table;
}

// nvpmodel semantics: -1 = no cap (the table's top), other values rounded down to the table.
std::int64_t resolve_clock(const ModeSetting& setting, const std::string& param,
                           const std::vector<std::int64_t>& table) {
  if (!setting.clock_value) {
    if (!table.empty()) return table.back();
    return param == "EMC" ? 0 : 2147483647;
  }
  const std::int64_t v = *setting.clock_value;
  if (table.empty() || (param == "EMC" && v == 0)) return v;
  std::int64_t chosen = table.front();
  for (const auto t : table) {
    if (t <= v) chosen = t;
  }
  return chosen;
}

// A CLOCK parameter's MIN_FREQ and MAX_FREQ, emitted together in a safe order.
void plan_clock_setting(const sysfs::Root& root, const DeviceControls& controls, const PowerModel& model,
                        const ParamDefinition& param, const ModeSetting& s, const ParamArgument& argument,
                        const std::set<int>& target_online, PowerModePlan& plan) {
  const bool cpu = is_cpu_cluster_param(s.param);
  const std::int64_t units = cpu ? kKhzPerMhz : kHzPerMhz;
  const ModeSetting* min_setting = model.find(s.param, "MIN_FREQ");
  const ModeSetting* max_setting = model.find(s.param, "MAX_FREQ");
  const ParamArgument* min_argument = param.find("MIN_FREQ");
  const ParamArgument* max_argument = param.find("MAX_FREQ");
  const auto min_path = (min_setting && min_argument) ? existing_param_path(root, *min_argument) : std::nullopt;
  const auto max_path = (max_setting && max_argument) ? existing_param_path(root, *max_argument) : std::nullopt;
  if (!min_path && !max_path) {
    plan.notes.push_back(fmt::format("{}: {} absent on this board; skipped", s.param, argument.path));
    return;
  }
  if (cpu) {
    const CpuClusterControl* cluster = cluster_of(root, controls, max_path ? *max_path : *min_path);
    if (cluster &&
        std::none_of(cluster->cpus.begin(), cluster->cpus.end(), [&](int c) { return target_online.count(c) != 0; })) {
      plan.notes.push_back(
          fmt::format("{}: all cores of {} are offline in this mode; not set", s.param, cluster->name));
      return;
    }
  }
  const std::vector<std::int64_t> table = clock_table(root, param, s.param, plan);
  if (min_path && max_path) {
    const std::int64_t new_min = resolve_clock(*min_setting, s.param, table);
    const std::int64_t new_max = std::max(new_min, resolve_clock(*max_setting, s.param, table));
    emit_min_max(plan, s.param, *min_path, *max_path, new_min, new_max, read_current(root, *min_path),
                 read_current(root, *max_path), units);
  } else {
    const std::string& path = max_path ? *max_path : *min_path;
    const std::int64_t value = resolve_clock(max_path ? *max_setting : *min_setting, s.param, table);
    if (read_current(root, path) != value) {
      plan.writes.push_back(
          {path, line(value), fmt::format("{} {} {}", s.param, max_path ? "MAX_FREQ" : "MIN_FREQ", value)});
    }
  }
}

// nvpmodel's status file names the mode; nvpmodel rewrites the whole line, and the fan mode
// (fmode:) is not a power mode's and stays.
void plan_nvpmodel_status(const sysfs::Root& root, const DeviceControls& controls, const PowerModel& model,
                          PowerModePlan& plan) {
  if (!controls.nvpmodel_status_path) return;
  const auto current = sysfs::try_read_string(root, *controls.nvpmodel_status_path);
  const std::string status =
      format_nvpmodel_status(model.id, current ? nvpmodel_status_fan_mode(*current) : std::nullopt);
  if (current.value_or("") + "\n" != status) {
    plan.writes.push_back({*controls.nvpmodel_status_path, status, fmt::format("nvpmodel status mode {}", model.id)});
  }
}

}  // namespace

PowerModePlan plan_nvpmodel_mode(const sysfs::Root& root, const DeviceControls& discovered, int id, bool allow_reboot) {
  const DeviceControls controls = as_now(root, discovered);
  if (!controls.nvpmodel) {
    throw std::invalid_argument("this board has no /etc/nvpmodel.conf: nvpmodel power modes are not available");
  }
  const NvpmodelConfig& config = *controls.nvpmodel;
  const PowerModel& model = config.mode(id);
  PowerModePlan plan;
  plan.description = fmt::format("nvpmodel mode {} ({})", model.id, model.name);
  plan.nvpmodel_id = model.id;
  const std::set<int> target_online = nvpmodel_target_online(controls, model);
  check_tpc_power_gating(root, config, model, allow_reboot, plan);

  std::set<std::string> clocks_done;
  std::map<std::string, std::string> planned_files;  // plan_file_setting says why
  for (const auto& s : model.settings) {
    const ParamDefinition& param = *config.find_param(s.param);
    const ParamArgument& argument = *param.find(s.argument);
    if (param.type == ParamType::kFile) {
      plan_file_setting(root, s, argument, planned_files, plan);
    } else if (s.argument != "MIN_FREQ" && s.argument != "MAX_FREQ") {
      plan.notes.push_back(fmt::format("{} {}: not a MIN_FREQ/MAX_FREQ setting; skipped", s.param, s.argument));
    } else if (clocks_done.insert(s.param).second) {
      plan_clock_setting(root, controls, model, param, s, argument, target_online, plan);
    }
  }
  plan_nvpmodel_status(root, controls, model, plan);
  return plan;
}

}  // namespace jetchar::jetson
