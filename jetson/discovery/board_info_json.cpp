#include "jetson/discovery/board_info_json.h"

namespace jetchar::jetson {
namespace {

using Json = nlohmann::ordered_json;

template <typename T>
Json opt(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

Json absent(const std::optional<std::string>& why) { return Json{{"absent", why.value_or("absent")}}; }

void add_unavailable(Json& list, std::string_view subsystem, const std::vector<Unavailable>& items) {
  for (const auto& u : items) {
    list.push_back(Json{{"subsystem", subsystem}, {"item", u.item}, {"path", u.path}, {"reason", u.reason}});
  }
}

Json identity_json(const BoardIdentity& id) {
  Json l4t = nullptr;
  if (id.l4t) {
    l4t = Json{{"release", id.l4t->version()},
               {"major", id.l4t->major},
               {"revision", std::to_string(id.l4t->minor) + "." + std::to_string(id.l4t->patch)},
               {"gcid", opt(id.l4t->gcid)},
               {"board", opt(id.l4t->board)},
               {"kernel_variant", opt(id.l4t->kernel_variant)},
               {"source", opt(id.l4t_source)}};
  }
  return Json{{"kind", std::string(to_string(id.kind))},
              {"family", opt(id.family)},
              {"family_source", opt(id.family_source)},
              {"model", opt(id.model)},
              {"module_pnumber", opt(id.module_pnumber)},
              {"module_name", opt(id.module_name)},
              {"module_source", opt(id.module_source)},
              {"carrier_pnumber", opt(id.carrier_pnumber)},
              {"soc", opt(id.soc)},
              {"compatible", id.compatible},
              {"dts_filename", opt(id.dts_filename)},
              {"serial_number", opt(id.serial_number)},
              {"device_tree", opt(id.device_tree_path)},
              {"l4t", l4t},
              {"l4t_note", opt(id.l4t_note)},
              {"jetpack", opt(id.jetpack)},
              {"kernel_release", opt(id.kernel_release)},
              {"os", opt(id.os_name)}};
}

Json cpu_json(const CpuTopology& cpu) {
  Json policies = Json::array();
  for (const auto& p : cpu.policies) {
    policies.push_back(Json{{"name", p.name},
                            {"path", p.sysfs_path},
                            {"related_cpus", p.related_cpus},
                            {"affected_cpus", p.affected_cpus},
                            {"active", p.active},
                            {"governor", opt(p.governor)},
                            {"available_governors", p.available_governors},
                            {"scaling_min_freq_khz", opt(p.min_freq_khz)},
                            {"scaling_max_freq_khz", opt(p.max_freq_khz)},
                            {"scaling_cur_freq_khz", opt(p.cur_freq_khz)},
                            {"cpuinfo_min_freq_khz", opt(p.hw_min_freq_khz)},
                            {"cpuinfo_max_freq_khz", opt(p.hw_max_freq_khz)},
                            {"available_freqs_khz", p.available_freqs_khz}});
  }
  Json cores = Json::array();
  for (const auto& core : cpu.cores) {
    Json idle = Json::array();
    for (const auto& s : core.idle_states) {
      idle.push_back(Json{{"name", s.name}, {"disabled", opt(s.disabled)}, {"latency_us", opt(s.latency_us)}});
    }
    cores.push_back(
        Json{{"cpu", core.cpu}, {"online", core.online}, {"policy", opt(core.policy)}, {"idle_states", idle}});
  }
  return Json{{"possible", cpu.possible},
              {"online", cpu.online},
              {"cpufreq", cpu.cpufreq_absent ? absent(cpu.cpufreq_absent) : Json{{"policies", policies}}},
              {"cpuidle_absent", opt(cpu.cpuidle_absent)},
              {"cores", cores}};
}

Json gpu_json(const GpuDiscovery& discovery) {
  if (!discovery.gpu) return absent(discovery.absent);
  const GpuDevice& g = *discovery.gpu;
  return Json{{"devfreq", g.devfreq_name},
              {"devfreq_path", g.devfreq_path},
              {"device_path", g.device_path},
              {"of_compatible", opt(g.of_compatible)},
              {"of_name", opt(g.of_name)},
              {"matched_by", g.matched_by},
              {"governor", opt(g.governor)},
              {"available_governors", g.available_governors},
              {"min_freq_hz", opt(g.min_freq_hz)},
              {"max_freq_hz", opt(g.max_freq_hz)},
              {"cur_freq_hz", opt(g.cur_freq_hz)},
              {"available_freqs_hz", g.available_freqs_hz},
              {"load_path", opt(g.load_path)},
              {"load_permille", opt(g.load_permille)},
              {"load_absent", opt(g.load_absent)},
              {"railgate_path", opt(g.railgate_path)},
              {"railgate_enabled", opt(g.railgate_enabled)},
              {"tpc_pg_mask", opt(g.tpc_pg_mask)}};
}

Json emc_json(const EmcClock& e) {
  return Json{{"access", std::string(to_string(e.access))},
              {"interface", opt(e.interface)},
              {"rate_path", opt(e.rate_path)},
              {"cur_rate_hz", opt(e.cur_rate_hz)},
              {"min_rate_hz", opt(e.min_rate_hz)},
              {"max_rate_hz", opt(e.max_rate_hz)},
              {"rate_locked", opt(e.rate_locked)},
              {"possible_rates_hz", e.possible_rates_hz},
              {"nvpmodel_cap_path", opt(e.cap_path)},
              {"nvpmodel_cap_hz", opt(e.cap_hz)},
              {"note", opt(e.note)}};
}

Json power_json(const PowerMonitors& power) {
  if (power.devices.empty()) return absent(power.absent);
  Json devices = Json::array();
  for (const auto& d : power.devices) {
    Json rails = Json::array();
    for (const auto& r : d.rails) {
      rails.push_back(Json{{"name", r.name},
                           {"channel", r.channel},
                           {"connected", r.connected},
                           {"voltage_path", r.voltage_path},
                           {"current_path", r.current_path},
                           {"power_path", opt(r.power_path)},
                           {"shunt_resistor_uohm", opt(r.shunt_resistor_uohm)},
                           {"warn_current_limit_ma", opt(r.warn_current_limit_ma)},
                           {"crit_current_limit_ma", opt(r.crit_current_limit_ma)},
                           {"voltage_mv", opt(r.voltage_mv)},
                           {"current_ma", opt(r.current_ma)},
                           {"power_mw", opt(r.power_mw)}});
    }
    devices.push_back(Json{{"driver", std::string(to_string(d.driver))},
                           {"i2c_device", d.i2c_device},
                           {"path", d.sysfs_path},
                           {"samples", opt(d.samples)},
                           {"update_interval_ms", opt(d.update_interval_ms)},
                           {"running_mode", opt(d.running_mode)},
                           {"rails", rails}});
  }
  return Json{{"board_input_rail", opt(power.board_input_rail)},
              {"total", opt(power.total_kind)},
              {"summed_rails", power.summed_rails},
              {"devices", devices}};
}

Json fans_json(const FanDiscovery& fans) {
  if (fans.fans.empty()) return absent(fans.absent);
  Json list = Json::array();
  for (const auto& f : fans.fans) {
    list.push_back(Json{{"interface", f.interface},
                        {"pwm_path", f.pwm_path},
                        {"pwm", opt(f.pwm)},
                        {"pwm_enable", opt(f.pwm_enable)},
                        {"rpm_path", opt(f.rpm_path)},
                        {"rpm", opt(f.rpm)},
                        {"kernel_control", opt(f.kernel_control)}});
  }
  return list;
}

Json thermal_json(const ThermalDiscovery& thermal) {
  if (thermal.zones.empty()) return absent(thermal.absent);
  Json list = Json::array();
  for (const auto& z : thermal.zones) {
    list.push_back(Json{{"zone", z.zone},
                        {"type", z.type},
                        {"temp_mc", opt(z.temp_mc)},
                        {"powered_off", z.powered_off},
                        {"fixed_reading", z.fixed_reading},
                        {"note", opt(z.note)}});
  }
  return list;
}

Json host_json(const HostSensors& host) {
  Json hwmon = Json::array();
  for (const auto& d : host.hwmon) {
    Json channels = Json::array();
    for (const auto& c : d.channels) {
      channels.push_back(
          Json{{"attribute", c.attribute}, {"label", opt(c.label)}, {"unit", c.unit}, {"value", opt(c.value)}});
    }
    hwmon.push_back(Json{{"hwmon", d.hwmon}, {"name", d.name}, {"channels", channels}});
  }
  Json powercap = Json::array();
  for (const auto& z : host.powercap) {
    powercap.push_back(Json{{"zone", z.zone},
                            {"name", opt(z.name)},
                            {"energy_uj", opt(z.energy_uj)},
                            {"max_energy_range_uj", opt(z.max_energy_range_uj)},
                            {"note", opt(z.note)}});
  }
  return Json{{"hwmon", host.hwmon_absent && host.hwmon.empty() ? absent(host.hwmon_absent) : hwmon},
              {"powercap", host.powercap.empty() ? absent(host.powercap_absent) : powercap},
              {"nvidia_gpus", host.nvidia_gpus.empty() ? absent(host.nvidia_gpus_absent) : Json(host.nvidia_gpus)}};
}

template <class T>
Json nvml_json_value(const NvmlValue<T>& v) {
  return v.value ? Json(*v.value) : absent(v.absent);
}

Json nvml_json(const NvmlDiscovery& n) {
  Json gpus = Json::array();
  for (const auto& g : n.gpus) {
    Json range = g.power_limit_range_mw.value ? Json{{"min_mw", g.power_limit_range_mw.value->first},
                                                     {"max_mw", g.power_limit_range_mw.value->second}}
                                              : absent(g.power_limit_range_mw.absent);
    gpus.push_back(Json{{"index", g.index},
                        {"uuid", g.uuid},
                        {"name", nvml_json_value(g.name)},
                        {"power_mw", nvml_json_value(g.power_mw)},
                        {"power_source", "polled (nvmlDeviceGetPowerUsage)"},
                        {"power_average_mw", nvml_json_value(g.power_average_mw)},
                        {"power_instant_mw", nvml_json_value(g.power_instant_mw)},
                        {"energy_mj", nvml_json_value(g.energy_mj)},
                        {"energy_source", "counter since the driver loaded (nvmlDeviceGetTotalEnergyConsumption)"},
                        {"graphics_clock_mhz", nvml_json_value(g.graphics_clock_mhz)},
                        {"sm_clock_mhz", nvml_json_value(g.sm_clock_mhz)},
                        {"memory_clock_mhz", nvml_json_value(g.memory_clock_mhz)},
                        {"temperature_c", nvml_json_value(g.temperature_c)},
                        {"gpu_util_pct", nvml_json_value(g.gpu_util_pct)},
                        {"memory_util_pct", nvml_json_value(g.memory_util_pct)},
                        {"memory_used_bytes", nvml_json_value(g.memory_used_bytes)},
                        {"memory_total_bytes", nvml_json_value(g.memory_total_bytes)},
                        {"power_limit_mw", nvml_json_value(g.power_limit_mw)},
                        {"default_power_limit_mw", nvml_json_value(g.default_power_limit_mw)},
                        {"enforced_power_limit_mw", nvml_json_value(g.enforced_power_limit_mw)},
                        {"power_limit_range", range},
                        {"clock_event_reasons", nvml_json_value(g.clock_event_reasons)},
                        {"supported_memory_clocks_mhz", nvml_json_value(g.memory_clocks_mhz)},
                        {"supported_graphics_clocks_mhz", nvml_json_value(g.graphics_clocks_mhz)}});
  }
  Json out{{"library", n.library}, {"driver_version", opt(n.driver_version)}};
  if (n.absent) out["absent"] = *n.absent;
  out["gpus"] = gpus;
  out["notes"] = n.notes;
  return out;
}

}  // namespace

nlohmann::ordered_json to_json(const BoardInfo& info, const BoardOrigin& origin) {
  Json unavailable = Json::array();
  add_unavailable(unavailable, "cpu", info.cpu.unavailable);
  add_unavailable(unavailable, "gpu", info.gpu.unavailable);
  add_unavailable(unavailable, "emc", info.emc.unavailable);
  add_unavailable(unavailable, "power_monitors", info.power.unavailable);
  add_unavailable(unavailable, "fans", info.fans.unavailable);
  add_unavailable(unavailable, "thermal_zones", info.thermal.unavailable);
  Json out{{"schema", "jetchar.device_info"},
           {"schema_version", kDeviceInfoSchemaVersion},
           {"source", Json{{"board", origin.board},
                           {"simulated", origin.simulated},
                           {"fixture", opt(origin.fixture)},
                           {"root", opt(origin.root)}}},
           {"board", identity_json(info.identity)},
           {"memory_total_kib", opt(info.memory_total_kib)},
           {"cpu", cpu_json(info.cpu)},
           {"gpu", gpu_json(info.gpu)},
           {"emc", emc_json(info.emc)},
           {"power_monitors", power_json(info.power)},
           {"fans", fans_json(info.fans)},
           {"thermal_zones", thermal_json(info.thermal)},
           {"host_sensors", host_json(info.host)},
           {"unavailable", unavailable}};
  // Only where NVML was probed (this machine's own root): a simulated board has no driver.
  if (info.nvml) out["nvml"] = nvml_json(*info.nvml);
  return out;
}

}  // namespace jetchar::jetson
