#include "jetson/telemetry/telemetry_line.h"

#include <fmt/format.h>

#include <map>
#include <utility>

namespace jetchar::jetson {

std::string TelemetryLineFormatter::format(const TelemetrySample& s, std::optional<double> meter_mw) const {
  std::string line;
  const auto value = [&](std::size_t i) { return s.values[i].get(); };
  std::string cpu;
  std::string clusters;
  std::optional<double> gpu_load, gpu_freq, emc_util, emc_freq, mem;
  std::string rails, temps;
  std::map<std::string, std::pair<std::optional<double>, std::optional<double>>> nvml;  // GPU -> util %, clock MHz
  for (std::size_t i = 0; i < layout_.fields.size(); ++i) {
    const auto& f = layout_.fields[i];
    const auto v = value(i);
    switch (f.group) {
      case FieldGroup::kCpuUtil:
        // "-": no figure (core offline, or no scheduler tick since the last sample).
        cpu += (cpu.empty() ? "" : ",") + (v ? fmt::format("{:.0f}%", *v) : std::string("-"));
        break;
      case FieldGroup::kCpuFreq:
        clusters +=
            fmt::format(" {}@{}", f.name.substr(0, f.name.find('.')), v ? fmt::format("{:.0f}MHz", *v / 1000) : "?");
        break;
      case FieldGroup::kGpu:
        if (f.name == "gpu.load_pct") gpu_load = v;
        else gpu_freq = v;
        break;
      case FieldGroup::kEmc:
        if (f.name == "emc.util_pct") emc_util = v;
        else emc_freq = v;
        break;
      case FieldGroup::kMemory: mem = v; break;
      case FieldGroup::kNvmlGpu: {
        const std::size_t dot = f.name.find('.');
        auto& [util, clock] = nvml[f.name.substr(0, dot)];
        if (f.name.compare(dot + 1, std::string::npos, "util_pct") == 0) util = v;
        if (f.name.compare(dot + 1, std::string::npos, "graphics_clock_mhz") == 0) clock = v;
        break;
      }
      case FieldGroup::kTemperature:
        temps +=
            fmt::format(" {}@{}", f.name.substr(0, f.name.rfind('.')), v ? fmt::format("{:.1f}C", *v / 1000) : "?");
        break;
      case FieldGroup::kRail:
      case FieldGroup::kEnergyCounter:
        if (f.unit == "mW") {
          rails += fmt::format(" {} {}", f.name.substr(0, f.name.rfind('.')),
                               v ? fmt::format("{:.0f}mW{}", *v, s.values[i].repeated() ? "*" : "") : "?");
        }
        break;
    }
  }
  if (mem) line += fmt::format("RAM {:.0f}MB ", *mem / 1024);
  if (!cpu.empty()) line += "CPU [" + cpu + "]";
  line += clusters;
  if (emc_freq)
    line += fmt::format(" EMC_FREQ {}@{:.0f}MHz", emc_util ? fmt::format("{:.0f}%", *emc_util) : "", *emc_freq / 1e6);
  if (gpu_load || gpu_freq) {
    line += fmt::format(" GR3D_FREQ {}@{}", gpu_load ? fmt::format("{:.0f}%", *gpu_load) : "",
                        gpu_freq ? fmt::format("{:.0f}MHz", *gpu_freq / 1e6) : "?");
  }
  for (const auto& [gpu, reading] : nvml) {
    line += fmt::format(" {} {}@{}", gpu, reading.first ? fmt::format("{:.0f}%", *reading.first) : "",
                        reading.second ? fmt::format("{:.0f}MHz", *reading.second) : "?");
  }
  line += temps;
  line += rails;
  if (meter_mw) line += fmt::format(" METER {:.0f}mW", *meter_mw);
  return line;
}

}  // namespace jetchar::jetson
