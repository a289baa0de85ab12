#include "jetson/measurement/sample_log.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

namespace jetchar::jetson::measurement {
namespace {

nlohmann::json number_or_null(std::optional<double> v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

}  // namespace

SampleLog::SampleLog(const std::filesystem::path& path, Format format, const TelemetryLayout& layout,
                     std::size_t meters, const std::string& origin)
    : layout_(layout), format_(format), with_meter_(meters > 0) {
  out_.open(path, std::ios::trunc);
  if (!out_) throw std::invalid_argument(fmt::format("{} {}: cannot be written", origin, path.string()));
  if (format_ == Format::kCsv) {
    out_ << "source,time_s";
    for (const auto& f : layout.fields) out_ << ',' << f.name;
    if (with_meter_) out_ << ",meter.power_mw,meter.voltage_mv,meter.current_ma";
    out_ << ",repeated\n";
  }
}

void SampleLog::sample(const TelemetrySample& s) {
  const double t = static_cast<double>(s.time_ns - t0_ns_) / 1e9;
  std::string repeated;
  for (std::size_t i = 0; i < layout_.fields.size(); ++i) {
    if (s.values[i].repeated()) repeated += (repeated.empty() ? "" : " ") + layout_.fields[i].name;
  }
  std::lock_guard lock(mutex_);
  if (format_ == Format::kJsonl) {
    nlohmann::json j;
    j["source"] = "onboard";
    j["time_s"] = t;
    nlohmann::json values = nlohmann::json::object();
    for (std::size_t i = 0; i < layout_.fields.size(); ++i) {
      values[layout_.fields[i].name] = s.values[i].valid() ? nlohmann::json(s.values[i].value) : nlohmann::json();
    }
    j["values"] = std::move(values);
    if (!repeated.empty()) j["repeated"] = repeated;
    out_ << j.dump() << '\n';
  } else {
    out_ << "onboard," << fmt::format("{:.6f}", t);
    for (const auto& v : s.values) out_ << ',' << (v.valid() ? fmt::format("{}", v.value) : std::string());
    if (with_meter_) out_ << ",,,";
    out_ << ',' << repeated << '\n';
  }
}

void SampleLog::meter(const meters::MeterReading& r) {
  const double t = static_cast<double>(r.host_time_ns - t0_ns_) / 1e9;
  const auto num = [](std::optional<double> v) { return v ? fmt::format("{}", *v) : std::string(); };
  std::lock_guard lock(mutex_);
  if (format_ == Format::kJsonl) {
    nlohmann::json j;
    j["source"] = "meter";
    j["time_s"] = t;
    j["values"] = {{"power_mw", number_or_null(r.power_mw)},
                   {"voltage_mv", number_or_null(r.voltage_mv)},
                   {"current_ma", number_or_null(r.current_ma)}};
    out_ << j.dump() << '\n';
  } else {
    out_ << "meter," << fmt::format("{:.6f}", t) << std::string(layout_.fields.size(), ',') << ',' << num(r.power_mw)
         << ',' << num(r.voltage_mv) << ',' << num(r.current_ma) << ",\n";
  }
}

void SampleLog::summary(const SessionEnergy& e, const MeterSession& meters) {
  if (format_ != Format::kJsonl) return;
  nlohmann::json j;
  j["source"] = "summary";
  j["window_begin_monotonic_ns"] = e.begin_ns;
  j["window_end_monotonic_ns"] = e.end_ns;
  nlohmann::json rails = nlohmann::json::object();
  if (e.onboard) {
    for (const auto& rail : e.onboard->rails) rails[rail.name] = number_or_null(rail.energy.energy_mj);
    j["total_energy_mj"] = number_or_null(e.onboard->total_energy_mj);
    j["total"] = e.onboard->total.label;
  }
  j["rail_energy_mj"] = std::move(rails);
  // The first meter (the monitor takes one): its energy over the window, covered or not, and how
  // its stream was put on the onboard clock.
  if (!e.meters.empty() && meters.size() > 0) {
    const auto& m = e.meters.front();
    const auto& a = meters.alignment(0);
    j["meter_energy_mj"] = number_or_null(m.channel.energy_mj);
    j["meter_covered_ns"] = m.channel.covered_ns;
    j["meter_gap_ns"] = m.gap_ns;
    j["meter_first_ns"] = a.trace.empty() ? nlohmann::json() : nlohmann::json(a.trace.time_ns(0));
    j["meter_last_ns"] = a.trace.empty() ? nlohmann::json() : nlohmann::json(a.trace.time_ns(a.trace.size() - 1));
    j["meter_readings"] = meters.received(0);
    j["meter_readings_aligned"] = a.trace.size();
    j["meter_alignment"] = a.describe();
    j["meter_clock_fit"] = a.fit ? nlohmann::json{{"interval_ns", a.fit->interval_ns},
                                                  {"origin_ns", a.fit->origin_ns},
                                                  {"max_delay_ns", a.fit->max_delay_ns}}
                                 : nlohmann::json();
    j["meter_offset_ns"] = a.offset_ns;
    j["meter_offset_source"] = a.offset_source == OffsetSource::kMarkerEdges   ? "marker edges"
                               : a.offset_source == OffsetSource::kCorrelation ? "correlation"
                                                                               : "none";
    j["meter_offset_correlation"] = a.correlation ? nlohmann::json(a.correlation->correlation) : nlohmann::json();
    j["meter_offset_applied"] = a.offset_source != OffsetSource::kNone;
    j["meter_offset_note"] = a.offset_note;
  }
  std::lock_guard lock(mutex_);
  out_ << j.dump() << '\n';
  out_.flush();
}

}  // namespace jetchar::jetson::measurement
