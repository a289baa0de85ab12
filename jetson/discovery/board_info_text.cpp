#include "jetson/discovery/board_info_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "sysfs/cpu_list.h"

namespace jetchar::jetson {
namespace {

template <typename T>
std::string or_absent(const std::optional<T>& value, std::string_view absent = "absent") {
  if (!value) return std::string(absent);
  return fmt::format("{}", *value);
}

// 1497600 kHz -> "1497.6 MHz"; keeps the digits the kernel gives, drops trailing zeros.
std::string mhz(std::int64_t value, std::int64_t per_mhz) {
  std::string text = fmt::format("{:.3f}", static_cast<double>(value) / static_cast<double>(per_mhz));
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text + " MHz";
}
std::string khz_as_mhz(const std::optional<std::int64_t>& khz) { return khz ? mhz(*khz, 1000) : "absent"; }
std::string hz_as_mhz(const std::optional<std::int64_t>& hz) { return hz ? mhz(*hz, 1000000) : "absent"; }

std::string mhz_list(const std::vector<std::int64_t>& values, std::int64_t per_mhz) {
  if (values.empty()) return "absent";
  std::string out;
  for (auto v : values) {
    std::string one = mhz(v, per_mhz);
    one.resize(one.size() - 4);  // unit once at the end
    out += (out.empty() ? "" : " ") + one;
  }
  return out + " MHz";
}

std::string words(const std::vector<std::string>& list) {
  if (list.empty()) return "absent";
  std::string out;
  for (const auto& w : list) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::string celsius(std::int64_t mc) { return fmt::format("{:.1f} C", static_cast<double>(mc) / 1000.0); }

// Items that exist but could not be read, under the section they belong to.
void unavailable_text(std::string& out, const std::vector<Unavailable>& items) {
  for (const auto& u : items) out += fmt::format("  unavailable:     {}: {}\n", u.item, u.reason);
}

void identity_text(std::string& out, const BoardIdentity& id, const std::optional<std::int64_t>& mem_kib) {
  out += "Board\n";
  out += fmt::format("  kind:            {}\n", to_string(id.kind));
  if (id.kind == BoardKind::kJetson) {
    out += fmt::format("  family:          {}{}\n", or_absent(id.family, "unknown"),
                       id.family_source ? " (from " + *id.family_source + ")" : "");
    out += fmt::format("  model:           {}\n", or_absent(id.model));
    out += fmt::format("  module:          {}{}{}\n", or_absent(id.module_pnumber, "unknown"),
                       id.module_name ? " = " + *id.module_name : "",
                       id.module_source ? " (from " + *id.module_source + ")" : "");
    out += fmt::format("  carrier:         {}\n", or_absent(id.carrier_pnumber, "unknown"));
    out += fmt::format("  SoC:             {}\n", or_absent(id.soc, "unknown"));
    out += fmt::format("  L4T:             {}{}\n", id.l4t ? "R" + id.l4t->version() : "unknown",
                       id.l4t_source ? " (from " + *id.l4t_source + ")" : "");
    out += fmt::format("  JetPack:         {}\n", or_absent(id.jetpack, "unknown"));
    if (id.l4t_note) out += fmt::format("  note:            {}\n", *id.l4t_note);
  } else {
    out += fmt::format("  device tree:     {}\n", id.device_tree_path ? *id.device_tree_path : "absent");
    if (id.model) out += fmt::format("  model:           {}\n", *id.model);
  }
  out += fmt::format("  kernel:          {}\n", or_absent(id.kernel_release));
  out += fmt::format("  OS:              {}\n", or_absent(id.os_name));
  out += fmt::format("  memory:          {}\n", mem_kib ? fmt::format("{} MiB", *mem_kib / 1024) : "absent");
}

void cpu_text(std::string& out, const CpuTopology& cpu) {
  out += "CPU\n";
  out += fmt::format("  cores:           {} possible, online {}\n", cpu.possible.size(),
                     cpu.online.empty() ? "none" : sysfs::format_cpu_list(cpu.online));
  if (cpu.cpufreq_absent) {
    out += fmt::format("  cpufreq:         absent ({})\n", *cpu.cpufreq_absent);
  }
  for (const auto& p : cpu.policies) {
    out += fmt::format("  {} (cpus {}{}): governor {}, min {}, max {}, cur {}, hw {} - {}\n", p.name,
                       sysfs::format_cpu_list(p.related_cpus), p.active ? "" : ", all offline", or_absent(p.governor),
                       khz_as_mhz(p.min_freq_khz), khz_as_mhz(p.max_freq_khz), khz_as_mhz(p.cur_freq_khz),
                       khz_as_mhz(p.hw_min_freq_khz), khz_as_mhz(p.hw_max_freq_khz));
    out += fmt::format("    governors:     {}\n", words(p.available_governors));
    out += fmt::format("    frequencies:   {}\n", mhz_list(p.available_freqs_khz, 1000));
  }
  if (cpu.cpuidle_absent) {
    out += fmt::format("  cpuidle:         absent ({})\n", *cpu.cpuidle_absent);
  } else {
    for (const auto& core : cpu.cores) {
      if (core.idle_states.empty()) continue;
      std::string states;
      for (const auto& s : core.idle_states) {
        states += fmt::format("{}{}{}", states.empty() ? "" : ", ", s.name,
                              s.disabled ? (*s.disabled ? " (disabled)" : "") : " (disable flag absent)");
      }
      out += fmt::format("  cpu{} idle:       {}\n", core.cpu, states);
      break;  // the same states on every core; per-core flags are in --json
    }
  }
}

void gpu_text(std::string& out, const GpuDiscovery& d) {
  out += "GPU\n";
  if (!d.gpu) {
    out += fmt::format("  absent ({})\n", d.absent.value_or("absent"));
    return;
  }
  const GpuDevice& g = *d.gpu;
  out += fmt::format("  devfreq:         {} (matched by {})\n", g.devfreq_path, g.matched_by);
  out += fmt::format("  device:          {}\n", g.device_path);
  out += fmt::format("  governor:        {} (available: {})\n", or_absent(g.governor), words(g.available_governors));
  out += fmt::format("  frequency:       min {}, max {}, cur {}\n", hz_as_mhz(g.min_freq_hz), hz_as_mhz(g.max_freq_hz),
                     hz_as_mhz(g.cur_freq_hz));
  out += fmt::format("  frequencies:     {}\n", mhz_list(g.available_freqs_hz, 1000000));
  out += fmt::format("  load:            {}\n",
                     g.load_permille ? fmt::format("{:.1f} % ({})", *g.load_permille / 10.0, *g.load_path)
                     : g.load_absent ? fmt::format("absent ({})", *g.load_absent)
                                     : std::string("absent"));
  out += fmt::format("  railgate:        {}\n",
                     g.railgate_enabled ? (*g.railgate_enabled ? "enabled" : "disabled") : std::string("absent"));
}

void emc_text(std::string& out, const EmcClock& e) {
  out += "EMC (memory clock)\n";
  if (e.access == EmcAccess::kReadable) {
    out += fmt::format("  rate:            cur {}, min {}, max {} ({})\n", hz_as_mhz(e.cur_rate_hz),
                       hz_as_mhz(e.min_rate_hz), hz_as_mhz(e.max_rate_hz), *e.interface);
    if (e.rate_locked) out += fmt::format("  locked:          {}\n", *e.rate_locked ? "yes" : "no");
    if (!e.possible_rates_hz.empty())
      out += fmt::format("  rates:           {}\n", mhz_list(e.possible_rates_hz, 1000000));
  } else {
    out += fmt::format("  rate:            {} ({})\n", to_string(e.access), e.note.value_or(""));
  }
  if (e.cap_path) {
    out += fmt::format("  nvpmodel cap:    {} ({})\n", e.cap_hz ? hz_as_mhz(e.cap_hz) : "none", *e.cap_path);
  }
}

void power_text(std::string& out, const PowerMonitors& p) {
  out += "Power monitors (INA3221)\n";
  if (p.devices.empty()) {
    out += fmt::format("  absent ({})\n", p.absent.value_or("absent"));
    return;
  }
  for (const auto& d : p.devices) {
    out += fmt::format("  {} {} at {}", to_string(d.driver), d.i2c_device, d.sysfs_path);
    if (d.samples) out += fmt::format(", samples {}", *d.samples);
    if (d.update_interval_ms) out += fmt::format(", update interval {} ms", *d.update_interval_ms);
    if (d.running_mode) out += fmt::format(", running mode {}", *d.running_mode == 1 ? "continuous" : "triggered");
    out += "\n";
    for (const auto& r : d.rails) {
      if (!r.connected) {
        out += fmt::format("    ch{} {:<18} not connected\n", r.channel, r.name);
        continue;
      }
      out += fmt::format("    ch{} {:<18} {} mV, {} mA, {} mW", r.channel, r.name, or_absent(r.voltage_mv, "?"),
                         or_absent(r.current_ma, "?"), or_absent(r.power_mw, "?"));
      if (r.shunt_resistor_uohm) out += fmt::format(", shunt {} uOhm", *r.shunt_resistor_uohm);
      out += "\n";
    }
  }
  if (p.board_input_rail) {
    out += fmt::format("  board input:     {}\n", *p.board_input_rail);
  } else if (p.total_kind) {
    out += fmt::format("  board input:     none on this module; total = sum of module rails ({})\n",
                       words(p.summed_rails));
  }
  for (const auto& sub : p.sub_rails) {
    out += fmt::format("  sub-rail:        {} is fed by {}; not added to the total\n", sub,
                       sub_rail_feeder(sub).value_or("another rail"));
  }
}

void fan_text(std::string& out, const FanDiscovery& f) {
  out += "Fan\n";
  if (f.fans.empty()) {
    out += fmt::format("  absent ({})\n", f.absent.value_or("absent"));
    return;
  }
  for (const auto& fan : f.fans) {
    out +=
        fmt::format("  {}: pwm {} of 255 ({}), tach {}{}\n", fan.interface, or_absent(fan.pwm), fan.pwm_path,
                    fan.rpm ? fmt::format("{} rpm", *fan.rpm) : "absent",
                    fan.kernel_control ? (*fan.kernel_control ? ", kernel thermal control" : ", manual control") : "");
  }
}

void thermal_text(std::string& out, const ThermalDiscovery& t) {
  out += "Thermal zones\n";
  if (t.zones.empty()) {
    out += fmt::format("  absent ({})\n", t.absent.value_or("absent"));
    return;
  }
  for (const auto& z : t.zones) {
    std::string value = z.temp_mc ? celsius(*z.temp_mc) : (z.powered_off ? "offline" : "unreadable");
    out += fmt::format("  {:<16} {:<20} {}{}\n", z.zone, z.type, value, z.note ? " (" + *z.note + ")" : "");
  }
}

void host_text(std::string& out, const HostSensors& h) {
  out += "Other sensors\n";
  if (h.hwmon.empty()) {
    out += fmt::format("  hwmon:           absent ({})\n", h.hwmon_absent.value_or("absent"));
  }
  for (const auto& d : h.hwmon) {
    out += fmt::format("  hwmon {} ({}):", d.hwmon, d.name.empty() ? "unnamed" : d.name);
    if (d.channels.empty()) out += " no readable channels";
    for (const auto& c : d.channels) {
      out += fmt::format(" {}{}={} {};", c.attribute, c.label ? "[" + *c.label + "]" : "", or_absent(c.value, "?"),
                         c.unit);
    }
    out += "\n";
  }
  if (h.powercap.empty()) {
    out += fmt::format("  powercap (RAPL): absent ({})\n", h.powercap_absent.value_or("absent"));
  }
  for (const auto& z : h.powercap) {
    out += fmt::format("  powercap {} ({}): energy {}{}\n", z.zone, or_absent(z.name, "unnamed"),
                       z.energy_uj ? fmt::format("{} uJ", *z.energy_uj) : "unreadable",
                       z.note ? " (" + *z.note + ")" : "");
  }
  out +=
      fmt::format("  NVIDIA dGPU:     {}\n",
                  h.nvidia_gpus.empty() ? "absent (" + h.nvidia_gpus_absent.value_or("") + ")" : words(h.nvidia_gpus));
}

template <class T, class Show>
std::string nvml_value(const NvmlValue<T>& v, Show&& show) {
  return v.value ? show(*v.value) : "absent (" + v.absent.value_or("absent") + ")";
}

std::string mhz_range(const NvmlValue<std::vector<unsigned int>>& clocks) {
  return nvml_value(clocks, [](const std::vector<unsigned int>& list) {
    if (list.empty()) return std::string("none");
    const auto [lo, hi] = std::minmax_element(list.begin(), list.end());
    return fmt::format("{}-{} MHz ({} steps)", *lo, *hi, list.size());
  });
}

void nvml_text(std::string& out, const NvmlDiscovery& n) {
  out += fmt::format("NVML ({}{})\n", n.library, n.driver_version ? ", driver " + *n.driver_version : "");
  if (n.absent) out += fmt::format("  absent ({})\n", *n.absent);
  const auto mhz = [](std::uint64_t v) { return fmt::format("{} MHz", v); };
  const auto watts = [](std::uint64_t mw) { return fmt::format("{:.3f} W", mw / 1000.0); };
  for (const auto& g : n.gpus) {
    out +=
        fmt::format("  GPU {} {}: {}\n", g.index, g.uuid, nvml_value(g.name, [](const std::string& s) { return s; }));
    out += fmt::format("    power (polled):        {}\n", nvml_value(g.power_mw, watts));
    out += fmt::format("    power (1 s average):   {}\n", nvml_value(g.power_average_mw, watts));
    out += fmt::format("    power (instant):       {}\n", nvml_value(g.power_instant_mw, watts));
    out += fmt::format("    energy counter:        {}\n", nvml_value(g.energy_mj, [](std::uint64_t mj) {
                         return fmt::format("{:.3f} J since the driver loaded", mj / 1000.0);
                       }));
    out += fmt::format("    power limit:           {}; default {}; enforced {}; accepts {}\n",
                       nvml_value(g.power_limit_mw, watts), nvml_value(g.default_power_limit_mw, watts),
                       nvml_value(g.enforced_power_limit_mw, watts),
                       nvml_value(g.power_limit_range_mw, [](const std::pair<std::uint64_t, std::uint64_t>& r) {
                         return fmt::format("{:.3f}-{:.3f} W", r.first / 1000.0, r.second / 1000.0);
                       }));
    out +=
        fmt::format("    clocks:                graphics {}; SM {}; memory {}\n", nvml_value(g.graphics_clock_mhz, mhz),
                    nvml_value(g.sm_clock_mhz, mhz), nvml_value(g.memory_clock_mhz, mhz));
    out += fmt::format("    clock tables:          graphics {}; memory {}\n", mhz_range(g.graphics_clocks_mhz),
                       mhz_range(g.memory_clocks_mhz));
    const auto pct = [](std::uint64_t v) { return fmt::format("{} %", v); };
    out += fmt::format("    utilization:           GPU {}; memory {}\n", nvml_value(g.gpu_util_pct, pct),
                       nvml_value(g.memory_util_pct, pct));
    out += fmt::format("    temperature:           {}\n",
                       nvml_value(g.temperature_c, [](std::uint64_t c) { return fmt::format("{} C", c); }));
    const auto mib = [](std::uint64_t bytes) { return fmt::format("{} MiB", bytes >> 20); };
    out += fmt::format("    memory:                {} used of {}\n", nvml_value(g.memory_used_bytes, mib),
                       nvml_value(g.memory_total_bytes, mib));
    out += fmt::format("    clock event reasons:   {}\n",
                       nvml_value(g.clock_event_reasons, [](const std::vector<std::string>& r) {
                         return r.empty() ? std::string("none") : fmt::format("{}", fmt::join(r, " "));
                       }));
  }
  for (const auto& note : n.notes) out += fmt::format("  note: {}\n", note);
}

}  // namespace

std::string to_text(const BoardInfo& info, const BoardOrigin& origin) {
  std::string out;
  if (origin.simulated) {
    out += fmt::format("SIMULATED board {} (fixture {}, {}): not real hardware\n", origin.board,
                       origin.fixture.value_or("?"),
                       origin.root ? "living in " + *origin.root : "expanded into a temporary root");
  } else {
    out += fmt::format("Board {} at root {}\n", origin.board, origin.root.value_or("/"));
  }
  identity_text(out, info.identity, info.memory_total_kib);
  cpu_text(out, info.cpu);
  unavailable_text(out, info.cpu.unavailable);
  gpu_text(out, info.gpu);
  unavailable_text(out, info.gpu.unavailable);
  emc_text(out, info.emc);
  unavailable_text(out, info.emc.unavailable);
  power_text(out, info.power);
  unavailable_text(out, info.power.unavailable);
  fan_text(out, info.fans);
  unavailable_text(out, info.fans.unavailable);
  thermal_text(out, info.thermal);
  unavailable_text(out, info.thermal.unavailable);
  host_text(out, info.host);
  if (info.nvml) nvml_text(out, *info.nvml);
  if (origin.simulated) out += "(simulated: every figure above comes from the fixture, not from hardware)\n";
  return out;
}

}  // namespace jetchar::jetson
