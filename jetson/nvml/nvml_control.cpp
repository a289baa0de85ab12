#include "jetson/nvml/nvml_control.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <mutex>
#include <stdexcept>

#include "sysfs/external_attribute.h"

namespace jetchar::jetson {

using nvml_abi::nvmlDevice_t;

namespace {

constexpr std::string_view kScheme = "nvml:";

const char* knob_name(NvmlKnob knob) {
  switch (knob) {
    case NvmlKnob::kPowerLimit: return "power_limit_mw";
    case NvmlKnob::kGpuLockedClocks: return "gpu_locked_clocks_mhz";
    case NvmlKnob::kMemoryLockedClocks: return "memory_locked_clocks_mhz";
  }
  return "?";
}

struct ParsedPath {
  std::string uuid;
  NvmlKnob knob;
};

ParsedPath parse_path(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (path.rfind(kScheme, 0) != 0 || slash == std::string::npos || slash <= kScheme.size()) {
    throw std::runtime_error(fmt::format("'{}' is not an NVML control (nvml:<uuid>/<knob>)", path));
  }
  const std::string knob = path.substr(slash + 1);
  ParsedPath parsed{path.substr(kScheme.size(), slash - kScheme.size()), NvmlKnob::kPowerLimit};
  if (knob == knob_name(NvmlKnob::kPowerLimit)) parsed.knob = NvmlKnob::kPowerLimit;
  else if (knob == knob_name(NvmlKnob::kGpuLockedClocks)) parsed.knob = NvmlKnob::kGpuLockedClocks;
  else if (knob == knob_name(NvmlKnob::kMemoryLockedClocks)) parsed.knob = NvmlKnob::kMemoryLockedClocks;
  else {
    throw std::runtime_error(fmt::format(
        "{}: unknown NVML control '{}'; valid: power_limit_mw, gpu_locked_clocks_mhz, memory_locked_clocks_mhz", path,
        knob));
  }
  return parsed;
}

// NVML's Set calls need root: say so with the error.
std::string permission_hint(nvml_abi::nvmlReturn_t code) {
  return code == nvml_abi::NVML_ERROR_NO_PERMISSION ? "; NVML's control calls need root (run jetchar as root)" : "";
}

// The library the "nvml:" controls go through: opened once, at first use, for the process.
std::shared_ptr<const NvmlLibrary> control_library() {
  static std::mutex mutex;
  static std::shared_ptr<const NvmlLibrary> library;
  std::lock_guard<std::mutex> lock(mutex);
  if (!library) {
    auto opened = NvmlLibrary::open();
    if (!opened.library) throw std::runtime_error("NVML controls: " + opened.absent.value_or("NVML is absent"));
    library = std::move(opened.library);
  }
  return library;
}

nvmlDevice_t device_of(const NvmlLibrary& nvml, const std::string& uuid, const std::string& path) {
  const auto handle = nvml.handle_by_uuid(uuid);
  if (!handle.ok()) throw std::runtime_error(fmt::format("{}: {}", path, handle.error));
  return *handle.value;
}

std::string read_control(const NvmlLibrary& nvml, const std::string& path) {
  const ParsedPath parsed = parse_path(path);
  const nvmlDevice_t device = device_of(nvml, parsed.uuid, path);
  if (parsed.knob == NvmlKnob::kPowerLimit) {
    const auto limit = nvml.power_limit_mw(device);
    if (!limit.ok()) throw std::runtime_error(fmt::format("{}: {}", path, limit.error));
    return std::to_string(*limit.value);
  }
  return "reset";  // NVML reports no locked clocks (see the header)
}

void write_control(const NvmlLibrary& nvml, const std::string& path, const std::string& value) {
  const ParsedPath parsed = parse_path(path);
  const nvmlDevice_t device = device_of(nvml, parsed.uuid, path);
  NvmlResult<bool> result;
  if (parsed.knob == NvmlKnob::kPowerLimit) {
    unsigned int mw = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), mw);
    if (ec != std::errc() || end == value.data() || (end != value.data() + value.size() && *end != '\n')) {
      throw std::runtime_error(fmt::format("{}: '{}' is not a power limit in mW (a whole number)", path, value));
    }
    result = nvml.set_power_limit_mw(device, mw);
  } else {
    const bool gpu = parsed.knob == NvmlKnob::kGpuLockedClocks;
    const std::string trimmed = value.substr(0, value.find('\n'));
    if (trimmed == "reset") {
      result = gpu ? nvml.reset_gpu_locked_clocks(device) : nvml.reset_memory_locked_clocks(device);
    } else {
      NvmlClockRange range;
      try {
        range = parse_clock_range(trimmed, path);
      } catch (const std::invalid_argument& e) {
        throw std::runtime_error(e.what());
      }
      result = gpu ? nvml.set_gpu_locked_clocks(device, range) : nvml.set_memory_locked_clocks(device, range);
    }
  }
  if (!result.ok()) {
    throw std::runtime_error(fmt::format("{} = {}: {}{}", path, value, result.error, permission_hint(result.code)));
  }
}

}  // namespace

std::string nvml_control_path(const std::string& uuid, NvmlKnob knob) {
  return fmt::format("{}{}/{}", kScheme, uuid, knob_name(knob));
}

NvmlClockRange parse_clock_range(const std::string& text, const std::string& what) {
  const std::size_t comma = text.find(',');
  NvmlClockRange range;
  const auto number = [&](std::string_view part, unsigned int& out) {
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), out);
    return ec == std::errc() && end == part.data() + part.size() && !part.empty();
  };
  if (comma == std::string::npos || !number(std::string_view(text).substr(0, comma), range.min_mhz) ||
      !number(std::string_view(text).substr(comma + 1), range.max_mhz) || range.min_mhz > range.max_mhz) {
    throw std::invalid_argument(
        fmt::format("{} '{}' is not a clock range; valid: MIN,MAX in MHz with MIN <= MAX "
                    "(e.g. 1200,1500)",
                    what, text));
  }
  return range;
}

std::vector<NvmlWrite> plan_nvml_writes(const NvmlLibrary& nvml, const NvmlSettings& settings) {
  std::vector<NvmlWrite> writes;
  if (settings.empty()) return writes;
  const auto count = nvml.device_count();
  if (!count.ok()) throw std::runtime_error("NVML: " + count.error);
  if (settings.gpu_index >= *count.value) {
    throw std::invalid_argument(fmt::format("NVML GPU index {} does not exist; valid: 0 to {}", settings.gpu_index,
                                            *count.value == 0 ? 0 : *count.value - 1));
  }
  const auto handle = nvml.handle(settings.gpu_index);
  if (!handle.ok()) throw std::runtime_error(fmt::format("NVML GPU {}: {}", settings.gpu_index, handle.error));
  const nvmlDevice_t device = *handle.value;
  const auto uuid = nvml.uuid(device);
  if (!uuid.ok()) throw std::runtime_error(fmt::format("NVML GPU {}: {}", settings.gpu_index, uuid.error));
  const std::string gpu = fmt::format("GPU {} ({})", settings.gpu_index, *uuid.value);

  if (settings.power_limit_w) {
    const double watts = *settings.power_limit_w;
    const auto range = nvml.power_limit_constraints_mw(device);
    if (!range.ok()) throw std::runtime_error(fmt::format("{} power limit: {}", gpu, range.error));
    const double mw = std::round(watts * 1000.0);
    if (!std::isfinite(watts) || mw < range.value->first || mw > range.value->second) {
      throw std::invalid_argument(fmt::format("{} power limit {} W is outside what it accepts; valid: {} to {} W", gpu,
                                              watts, range.value->first / 1000.0, range.value->second / 1000.0));
    }
    writes.push_back(NvmlWrite{nvml_control_path(*uuid.value, NvmlKnob::kPowerLimit),
                               fmt::format("{}", static_cast<unsigned int>(mw)),
                               fmt::format("{} power limit {} W", gpu, watts)});
  }
  const auto memory_clocks = [&]() -> std::vector<unsigned int> {
    const auto clocks = nvml.supported_memory_clocks_mhz(device);
    if (!clocks.ok() || clocks.value->empty()) {
      throw std::runtime_error(fmt::format("{} clock table: {}", gpu, clocks.ok() ? "empty" : clocks.error));
    }
    auto list = *clocks.value;
    std::sort(list.begin(), list.end());
    return list;
  };
  const auto check_range = [&](const NvmlClockRange& r, const std::vector<unsigned int>& table, const char* what) {
    if (table.empty() || r.min_mhz < table.front() || r.max_mhz > table.back()) {
      throw std::invalid_argument(fmt::format("{} {} {},{} MHz is outside its clock table; valid: {} to {} MHz", gpu,
                                              what, r.min_mhz, r.max_mhz, table.empty() ? 0 : table.front(),
                                              table.empty() ? 0 : table.back()));
    }
  };
  if (settings.gpu_locked_clocks_mhz) {
    const auto memory = memory_clocks();
    const auto graphics = nvml.supported_graphics_clocks_mhz(device, memory.back());
    if (!graphics.ok()) throw std::runtime_error(fmt::format("{} graphics clock table: {}", gpu, graphics.error));
    auto table = *graphics.value;
    std::sort(table.begin(), table.end());
    check_range(*settings.gpu_locked_clocks_mhz, table, "locked GPU clocks");
    writes.push_back(NvmlWrite{
        nvml_control_path(*uuid.value, NvmlKnob::kGpuLockedClocks),
        fmt::format("{},{}", settings.gpu_locked_clocks_mhz->min_mhz, settings.gpu_locked_clocks_mhz->max_mhz),
        fmt::format("{} locked GPU clocks {}-{} MHz", gpu, settings.gpu_locked_clocks_mhz->min_mhz,
                    settings.gpu_locked_clocks_mhz->max_mhz)});
  }
  if (settings.memory_locked_clocks_mhz) {
    check_range(*settings.memory_locked_clocks_mhz, memory_clocks(), "locked memory clocks");
    writes.push_back(NvmlWrite{
        nvml_control_path(*uuid.value, NvmlKnob::kMemoryLockedClocks),
        fmt::format("{},{}", settings.memory_locked_clocks_mhz->min_mhz, settings.memory_locked_clocks_mhz->max_mhz),
        fmt::format("{} locked memory clocks {}-{} MHz", gpu, settings.memory_locked_clocks_mhz->min_mhz,
                    settings.memory_locked_clocks_mhz->max_mhz)});
  }
  return writes;
}

void apply_nvml_writes(const NvmlLibrary& nvml, sysfs::ChangeJournal& journal, const std::vector<NvmlWrite>& writes) {
  register_nvml_controls();
  for (const auto& write : writes) {
    if (!journal.recorded(write.path)) {
      // The probe: the value it has (power limit) or the recorded original (reset), so that a
      // caller without permission is refused before anything is journalled or changed.
      try {
        const std::string current = read_control(nvml, write.path);
        write_control(nvml, write.path, current);
      } catch (const std::exception& e) {
        throw std::runtime_error(fmt::format("{}: {}; nothing was changed", write.description, e.what()));
      }
    }
    try {
      journal.write(write.path, write.value);
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("{}: {}", write.description, e.what()));
    }
  }
}

void register_nvml_controls() {
  static std::once_flag once;
  std::call_once(once, [] {
    sysfs::ExternalAttributeHandler handler;
    handler.read = [](const std::string& path) { return read_control(*control_library(), path); };
    handler.write = [](const std::string& path, const std::string& value) {
      write_control(*control_library(), path, value);
    };
    handler.readable_back = [](const std::string& path) { return parse_path(path).knob == NvmlKnob::kPowerLimit; };
    // nvml.h: the power limit is "not persistent across reboots or driver unloads", and locked GPU
    // and memory clocks "go back to their default value" after a reboot or driver reload.
    handler.reset_at_boot = true;
    sysfs::register_external_attributes("nvml", std::move(handler));
  });
}

}  // namespace jetchar::jetson
