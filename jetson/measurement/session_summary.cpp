#include "jetson/measurement/session_summary.h"

#include <fmt/format.h>
#include <fmt/printf.h>

#include <optional>

namespace jetchar::jetson::measurement {

// The texts keep printf's conversions (fmt::sprintf) so that their columns and roundings are the
// ones `jetchar monitor` has always printed.

std::vector<SourceBaseload> session_baseloads(MeasurementSession& session, std::int64_t begin_ns, std::int64_t end_ns) {
  std::vector<SourceBaseload> baseloads;
  baseloads.push_back({"onboard rails", energy::measure_baseload(session.onboard().trace(), begin_ns, end_ns)});
  const auto& meters = session.meters();
  for (std::size_t m = 0; m < meters.size(); ++m) {
    const auto& trace = meters.alignment(m).trace;
    if (trace.size() < 2) continue;
    const auto method = meters.protocol(m).integration();
    baseloads.push_back({meters.size() == 1 ? std::string("external meter") : "external meter " + meters.spec(m).name(),
                         energy::measure_baseload(trace, trace.time_ns(0), trace.time_ns(trace.size() - 1), method)});
  }
  return baseloads;
}

std::string sampler_header_text(const std::string& board_label, double rate_hz, const TelemetrySampler& sampler) {
  std::string text =
      fmt::sprintf("jetchar monitor: %s, %.3g Hz, %zu fields\n", board_label, rate_hz, sampler.layout().fields.size());
  const auto opt = [](const auto& v) { return v ? std::to_string(*v) : std::string("-"); };
  for (const auto& ina : sampler.power_monitor_settings()) {
    text += fmt::sprintf("  power monitor %s (%s): samples %s, update_interval %s ms, running_mode %s\n", ina.device,
                         ina.driver, opt(ina.samples), opt(ina.update_interval_ms), opt(ina.running_mode));
  }
  for (const auto& note : sampler.notes()) text += fmt::sprintf("  absent: %s\n", note);
  return text;
}

std::string baseload_text(const SourceBaseload& source) {
  const auto& b = source.baseload;
  std::string text = fmt::sprintf("idle power (baseload), %s over %.3f s\n", source.source,
                                  static_cast<double>(b.end_ns - b.begin_ns) / 1e9);
  text +=
      fmt::sprintf("  %-20s %12s %12s %12s %12s %8s\n", "rail", "mean_mW", "stddev_mW", "min_mW", "max_mW", "samples");
  const auto f = [](std::optional<double> v) { return v ? fmt::format("{:.1f}", *v) : std::string("-"); };
  for (const auto& rail : b.rails) {
    text += fmt::sprintf("  %-20s %12s %12s %12s %12s %8zu  %s\n", rail.name, f(rail.mean_power_mw), f(rail.stddev_mw),
                         f(rail.min_mw), f(rail.max_mw), rail.samples, std::string(energy::to_string(rail.role)));
  }
  if (b.total_power_mw) text += fmt::sprintf("  total: %.1f mW (%s)\n", *b.total_power_mw, b.total.label);
  else text += fmt::sprintf("  total: - (%s)\n", b.total.label);
  return text;
}

namespace {

std::string meter_clock_text(const MeterAlignment& a) {
  if (!a.fit) return "host receive times (too few reports to fit)";
  return fmt::format(
      "meter clock {} over {} reports in {} stretch(es) (interval {:.3f} ms, receive delay up to {:.1f} ms removed)",
      a.clock == "clock fit" ? "fitted" : "placed at the nominal interval (arrival too bursty to fit a slope)",
      a.trace.size(), a.stretches, a.fit->interval_ns / 1e6, a.fit->max_delay_ns / 1e6);
}

}  // namespace

std::string energy_text(const SessionEnergy& e, const MeterSession& meters) {
  const double window_s = static_cast<double>(e.end_ns - e.begin_ns) / 1e9;
  std::string text;
  if (!e.onboard) {
    text += "energy: no power rails or energy counters on this board\n";
  } else {
    text += fmt::sprintf("energy over %.3f s:", window_s);
    for (const auto& rail : e.onboard->rails) {
      if (rail.energy.energy_mj) text += fmt::sprintf(" %s %.3f J", rail.name, *rail.energy.energy_mj / 1000);
    }
    if (e.onboard->total_energy_mj)
      text += fmt::sprintf("; total %.3f J (%s)", *e.onboard->total_energy_mj / 1000, e.onboard->total.label);
    text += "\n";
  }
  if (e.meters.empty()) return text;
  const auto& m = e.meters.front();
  if (m.channel.energy_mj) {
    text +=
        fmt::sprintf("meter energy: %.3f J over the onboard window (%.3f s%s)\n", *m.channel.energy_mj / 1000, window_s,
                     m.whole_energy_mj() ? std::string()
                                         : fmt::format(", meter covers {:.3f} s of it, {:.3f} s in gaps",
                                                       static_cast<double>(m.channel.covered_ns) / 1e9,
                                                       static_cast<double>(m.gap_ns) / 1e9));
  } else {
    text += "meter energy: - (no meter readings inside the onboard window)\n";
  }
  const auto& a = meters.alignment(0);
  text += fmt::sprintf("  alignment: %s; offset vs onboard total: %s\n", meter_clock_text(a), a.offset_note);
  return text;
}

std::string meter_status_text(const MeterSession& meters) {
  if (meters.empty()) return "";
  const auto status = meters.status(0);
  return fmt::sprintf("meter %s: %llu readings, %zu gaps, %llu bad frames%s%s\n",
                      std::string(meters.protocol(0).name()), static_cast<unsigned long long>(status.readings),
                      meters.gaps(0).size(), static_cast<unsigned long long>(status.protocol.bad_frames),
                      status.last_error.empty() ? "" : ", last error: ", status.last_error);
}

std::string sampler_cost_text(const SamplerStats& stats, double asked_rate_hz) {
  const double achieved =
      stats.elapsed_ns > 0 ? static_cast<double>(stats.samples) * 1e9 / static_cast<double>(stats.elapsed_ns) : 0;
  return fmt::sprintf(
      "sampler: %llu samples at %.2f Hz (asked %.3g), %llu missed deadlines, %llu dropped; cost %.1f us CPU per "
      "sample, %.3f %% of one core\n",
      static_cast<unsigned long long>(stats.samples), achieved, asked_rate_hz,
      static_cast<unsigned long long>(stats.missed_deadlines), static_cast<unsigned long long>(stats.dropped),
      stats.cpu_ns_per_sample() / 1e3, 100.0 * stats.cpu_fraction());
}

}  // namespace jetchar::jetson::measurement
