#include "experiments/mode_readback.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "jetson/control/nvpmodel_tool.h"
#include "sysfs/attribute.h"

namespace jetchar::experiments {
namespace {

std::string mhz(std::int64_t value, double units_per_mhz) { return fmt::format("{:g} MHz", value / units_per_mhz); }

std::string mhz(const std::optional<std::int64_t>& value, double units_per_mhz) {
  return value ? mhz(*value, units_per_mhz) : std::string("unreadable");
}

// A requested frequency in the file's units (kHz or Hz), as the board lists it.
std::int64_t units(double requested_mhz, double units_per_mhz) { return std::llround(requested_mhz * units_per_mhz); }

bool has_online_core(const jetson::CpuPolicy& policy, const std::vector<int>& online) {
  return std::any_of(policy.related_cpus.begin(), policy.related_cpus.end(),
                     [&](int cpu) { return std::find(online.begin(), online.end(), cpu) != online.end(); });
}

// min/max/governor of one clock, as a comparable record.
struct ClockLimits {
  std::string name;
  std::optional<std::int64_t> min;
  std::optional<std::int64_t> max;
  std::optional<std::string> governor;
  double units_per_mhz = 1000;
};

std::vector<ClockLimits> clock_limits(const jetson::BoardInfo& board) {
  std::vector<ClockLimits> clocks;
  for (const auto& policy : board.cpu.policies) {
    if (!policy.active) continue;
    clocks.push_back({policy.name, policy.min_freq_khz, policy.max_freq_khz, policy.governor, 1e3});
  }
  if (const auto& gpu = board.gpu.gpu) {
    clocks.push_back({"GPU", gpu->min_freq_hz, gpu->max_freq_hz, gpu->governor, 1e6});
  }
  return clocks;
}

// The NVML GPU that a spec's GPU knobs act on (DeviceSpec.nvml_gpu), as discovery read it; null
// when discovery did not open NVML (a board other than this host) or has no GPU at that index.
const jetson::NvmlGpu* nvml_gpu(const jetson::BoardInfo& board, std::uint32_t index) {
  if (!board.nvml) return nullptr;
  for (const auto& gpu : board.nvml->gpus) {
    if (gpu.index == index) return &gpu;
  }
  return nullptr;
}

std::string watts(std::uint64_t milliwatts) { return fmt::format("{:g} W", milliwatts / 1e3); }

}  // namespace

void record_resolved_knobs(const jetson::BoardInfo& board, proto::DeviceSpec& resolved) {
  if (!board.cpu.online.empty()) resolved.set_cpu_cores(static_cast<std::uint32_t>(board.cpu.online.size()));
  std::optional<std::int64_t> cpu_khz;
  for (const auto& policy : board.cpu.policies) {
    if (!policy.active || !policy.max_freq_khz || !has_online_core(policy, board.cpu.online)) continue;
    cpu_khz = std::max(cpu_khz.value_or(0), *policy.max_freq_khz);
  }
  if (cpu_khz) resolved.set_cpu_freq_mhz(*cpu_khz / 1e3);
  if (const auto& gpu = board.gpu.gpu; gpu && gpu->max_freq_hz) resolved.set_gpu_freq_mhz(*gpu->max_freq_hz / 1e6);
  if (board.emc.cur_rate_hz) resolved.set_emc_freq_mhz(*board.emc.cur_rate_hz / 1e6);
  // A discrete GPU's power limit is a knob the analysis fits over like a clock: record the limit
  // NVML reports for the GPU the spec's NVML knobs act on (locked clocks cannot be read: nvml.h
  // has no getter for them).
  if (resolved.has_gpu_power_limit_w()) {
    const auto* gpu = nvml_gpu(board, resolved.nvml_gpu());
    if (gpu && gpu->power_limit_mw.value) {
      resolved.set_gpu_power_limit_w(*gpu->power_limit_mw.value / 1e3);
    } else {
      resolved.clear_gpu_power_limit_w();
    }
  }
}

std::vector<std::string> differences_from_request(const proto::DeviceSpec& requested, const jetson::BoardInfo& board,
                                                  std::optional<int> nvpmodel_mode) {
  std::vector<std::string> differences;
  if (requested.has_preset_mode() && nvpmodel_mode && *nvpmodel_mode != static_cast<int>(requested.preset_mode())) {
    differences.push_back(
        fmt::format("nvpmodel status names mode {}, mode {} requested", *nvpmodel_mode, requested.preset_mode()));
  }
  if (requested.fan() == proto::FAN_MAX) {
    for (const auto& fan : board.fans.fans) {
      if (fan.pwm != 255) {
        differences.push_back(fmt::format("fan {} at PWM {}, 255 (max) requested", fan.pwm_path,
                                          fan.pwm ? std::to_string(*fan.pwm) : std::string("unreadable")));
      }
    }
  }
  const bool pinned = requested.dvfs() == proto::OFF;
  if (requested.has_cpu_cores() && board.cpu.online.size() != requested.cpu_cores()) {
    differences.push_back(fmt::format("{} CPU cores online ({}), {} requested", board.cpu.online.size(),
                                      fmt::join(board.cpu.online, ","), requested.cpu_cores()));
  }
  for (const auto& policy : board.cpu.policies) {
    if (!policy.active || !has_online_core(policy, board.cpu.online)) continue;
    if (requested.has_cpu_freq_mhz() && !requested.snap_to_available()) {
      const auto asked = units(requested.cpu_freq_mhz(), 1e3);
      const bool above_table = !policy.available_freqs_khz.empty() && asked > policy.available_freqs_khz.back();
      if (!above_table && policy.max_freq_khz != asked) {
        differences.push_back(
            fmt::format("{} max {}, {} requested", policy.name, mhz(policy.max_freq_khz, 1e3), mhz(asked, 1e3)));
      }
    }
    if (pinned && policy.min_freq_khz != policy.max_freq_khz) {
      differences.push_back(fmt::format("{} not pinned (min {}, max {}) with DVFS off", policy.name,
                                        mhz(policy.min_freq_khz, 1e3), mhz(policy.max_freq_khz, 1e3)));
    }
  }
  if (const auto& gpu = board.gpu.gpu; gpu && (requested.has_gpu_freq_mhz() || pinned)) {
    if (requested.has_gpu_freq_mhz() && !requested.snap_to_available() &&
        gpu->max_freq_hz != units(requested.gpu_freq_mhz(), 1e6)) {
      differences.push_back(fmt::format("GPU max {}, {} requested", mhz(gpu->max_freq_hz, 1e6),
                                        mhz(units(requested.gpu_freq_mhz(), 1e6), 1e6)));
    }
    if (pinned && gpu->min_freq_hz != gpu->max_freq_hz) {
      differences.push_back(fmt::format("GPU not pinned (min {}, max {}) with DVFS off", mhz(gpu->min_freq_hz, 1e6),
                                        mhz(gpu->max_freq_hz, 1e6)));
    }
  }
  if (requested.has_emc_freq_mhz() && !requested.snap_to_available()) {
    const auto asked = units(requested.emc_freq_mhz(), 1e6);
    const auto& emc = board.emc;
    const bool reached = pinned ? emc.cur_rate_hz == asked : (emc.cap_hz == asked || emc.max_rate_hz == asked);
    if (!reached) {
      differences.push_back(fmt::format("EMC {} (cap {}), {} requested", mhz(emc.cur_rate_hz, 1e6),
                                        mhz(emc.cap_hz, 1e6), mhz(asked, 1e6)));
    }
  }
  if (requested.has_gpu_power_limit_w() && board.nvml) {
    // NVML takes the limit in whole milliwatts (nvmlDeviceSetPowerManagementLimit), so that is the
    // precision it reads back in.
    const auto asked = static_cast<std::uint64_t>(std::llround(requested.gpu_power_limit_w() * 1e3));
    const auto* gpu = nvml_gpu(board, requested.nvml_gpu());
    if (!gpu) {
      differences.push_back(fmt::format("NVML GPU {} absent ({}), power limit {} requested", requested.nvml_gpu(),
                                        board.nvml->absent.value_or("NVML lists no GPU with that index"),
                                        watts(asked)));
    } else if (gpu->power_limit_mw.value != asked) {
      differences.push_back(fmt::format("GPU {} power limit {}, {} requested", gpu->index,
                                        gpu->power_limit_mw.value ? watts(*gpu->power_limit_mw.value)
                                                                  : gpu->power_limit_mw.absent.value_or("unreadable"),
                                        watts(asked)));
    }
  }
  return differences;
}

std::vector<std::string> changes_between(const jetson::BoardInfo& before, const jetson::BoardInfo& after,
                                         const proto::DeviceSpec& requested) {
  std::vector<std::string> changes;
  if (requested.fan() == proto::FAN_MAX) {
    for (const auto& fan : before.fans.fans) {
      const auto now = std::find_if(after.fans.fans.begin(), after.fans.fans.end(),
                                    [&](const jetson::Fan& f) { return f.pwm_path == fan.pwm_path; });
      const auto pwm = now == after.fans.fans.end() ? std::nullopt : now->pwm;
      if (pwm != fan.pwm) {
        changes.push_back(fmt::format("fan {} PWM {} became {}", fan.pwm_path, fan.pwm.value_or(-1), pwm.value_or(-1)));
      }
    }
  }
  if (before.cpu.online != after.cpu.online) {
    changes.push_back(
        fmt::format("online CPUs {} became {}", fmt::join(before.cpu.online, ","), fmt::join(after.cpu.online, ",")));
  }
  const auto then = clock_limits(before);
  const auto now = clock_limits(after);
  for (const auto& a : then) {
    const auto b = std::find_if(now.begin(), now.end(), [&](const ClockLimits& c) { return c.name == a.name; });
    if (b == now.end()) {
      changes.push_back(fmt::format("{} became unreadable", a.name));
      continue;
    }
    if (a.min != b->min)
      changes.push_back(
          fmt::format("{} min {} became {}", a.name, mhz(a.min, a.units_per_mhz), mhz(b->min, a.units_per_mhz)));
    if (a.max != b->max)
      changes.push_back(
          fmt::format("{} max {} became {}", a.name, mhz(a.max, a.units_per_mhz), mhz(b->max, a.units_per_mhz)));
    if (a.governor != b->governor) {
      changes.push_back(fmt::format("{} governor {} became {}", a.name, a.governor.value_or("unreadable"),
                                    b->governor.value_or("unreadable")));
    }
  }
  const auto& e0 = before.emc;
  const auto& e1 = after.emc;
  if (e0.cap_hz != e1.cap_hz) {
    changes.push_back(fmt::format("EMC cap {} became {}", mhz(e0.cap_hz, 1e6), mhz(e1.cap_hz, 1e6)));
  }
  if (e0.rate_locked != e1.rate_locked) changes.push_back("EMC rate lock changed");
  if (e0.rate_locked == true && e1.rate_locked == true && e0.cur_rate_hz != e1.cur_rate_hz) {
    changes.push_back(fmt::format("locked EMC rate {} became {}", mhz(e0.cur_rate_hz, 1e6), mhz(e1.cur_rate_hz, 1e6)));
  }
  if (before.nvml && after.nvml) {
    for (const auto& gpu : before.nvml->gpus) {
      const auto* now = nvml_gpu(after, gpu.index);
      const auto limit = now ? now->power_limit_mw.value : std::nullopt;
      if (gpu.power_limit_mw.value && limit != gpu.power_limit_mw.value) {
        changes.push_back(fmt::format("GPU {} power limit {} became {}", gpu.index, watts(*gpu.power_limit_mw.value),
                                      limit ? watts(*limit) : std::string("unreadable")));
      }
    }
  }
  return changes;
}

std::optional<int> nvpmodel_mode_now(const sysfs::Root& root) {
  const auto text = sysfs::try_read_string(root, jetson::kNvpmodelStatusFile);
  if (!text) return std::nullopt;
  try {
    return jetson::parse_nvpmodel_status(*text, jetson::kNvpmodelStatusFile);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace jetchar::experiments
