#include "experiments/meter_records.h"

#include <fmt/format.h>

namespace jetchar::experiments {

std::vector<jetson::measurement::MeterSpec> meter_specs(
    const google::protobuf::RepeatedPtrField<proto::MeterSpec>& meters) {
  std::vector<jetson::measurement::MeterSpec> specs;
  for (int i = 0; i < meters.size(); ++i) {
    jetson::measurement::MeterSpec spec;
    spec.protocol = meters.Get(i).protocol();
    spec.device = meters.Get(i).device();
    spec.origin = fmt::format("measurement.meters[{}].protocol", i);
    specs.push_back(std::move(spec));
  }
  return specs;
}

std::vector<proto::MeterEnergy> meter_energy_records(const jetson::measurement::MeterSession& meters,
                                                     std::int64_t begin_ns, std::int64_t end_ns) {
  std::vector<proto::MeterEnergy> out;
  for (const auto& window : meters.energy(begin_ns, end_ns)) {
    proto::MeterEnergy e;
    e.set_meter(window.meter);
    e.set_gap_s(static_cast<double>(window.gap_ns) / 1e9);
    e.set_readings(static_cast<std::uint32_t>(window.channel.samples_inside));
    if (const auto mj = window.whole_energy_mj()) {
      e.set_energy_j(*mj / 1000.0);
      e.set_average_power_w(*mj / (static_cast<double>(end_ns - begin_ns) / 1e6));
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<proto::MeterSummary> meter_summary_records(const jetson::measurement::MeterSession& meters,
                                                       std::int64_t begin_ns, std::int64_t end_ns) {
  std::vector<proto::MeterSummary> out;
  for (const auto& summary : meters.summaries(begin_ns, end_ns)) {
    proto::MeterSummary s;
    s.set_meter(summary.meter);
    s.set_readings(summary.readings);
    s.set_gap_count(summary.gap_count);
    s.set_gap_s(static_cast<double>(summary.gap_ns) / 1e9);
    s.set_reconnects(summary.reconnects);
    s.set_last_error(summary.last_error);
    if (summary.offset_ns) s.set_offset_s(static_cast<double>(*summary.offset_ns) / 1e9);
    s.set_alignment(summary.alignment);
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<const jetson::energy::PowerTrace*> meter_traces(const jetson::measurement::MeterSession& meters) {
  std::vector<const jetson::energy::PowerTrace*> out;
  for (std::size_t i = 0; i < meters.size(); ++i) out.push_back(&meters.alignment(i).trace);
  return out;
}

}  // namespace jetchar::experiments
