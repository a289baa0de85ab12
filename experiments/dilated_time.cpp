#include "experiments/dilated_time.h"

#include <cmath>

namespace jetchar::experiments {

void scale_epoch_energy(proto::EpochResult& e, double factor) {
  if (e.has_energy_j()) e.set_energy_j(e.energy_j() * factor);
  if (e.has_incremental_energy_j()) e.set_incremental_energy_j(e.incremental_energy_j() * factor);
  if (e.has_energy_per_sample_j()) e.set_energy_per_sample_j(e.energy_per_sample_j() * factor);
  for (auto& rail : *e.mutable_rails()) rail.set_energy_j(rail.energy_j() * factor);
  for (auto& meter : *e.mutable_meters()) {
    if (meter.has_energy_j()) meter.set_energy_j(meter.energy_j() * factor);
  }
}

void undilate(double dilation, proto::RunResult& result, std::vector<results::StoredPowerSample>& samples) {
  if (dilation == 1) return;
  const double k = dilation;
  for (auto& e : *result.mutable_epochs()) {
    e.set_stall_s(e.stall_s() / k);
    e.set_compute_s(e.compute_s() / k);
    e.set_e2e_s(e.e2e_s() / k);
    if (e.has_start_s()) e.set_start_s(e.start_s() / k);
    scale_epoch_energy(e, 1 / k);
    for (auto& meter : *e.mutable_meters()) meter.set_gap_s(meter.gap_s() / k);
  }
  for (auto& m : *result.mutable_minibatches()) {
    m.set_stall_s(m.stall_s() / k);
    m.set_compute_s(m.compute_s() / k);
    if (m.has_energy_j()) m.set_energy_j(m.energy_j() / k);
  }
  if (result.has_latency()) {
    auto& l = *result.mutable_latency();
    l.set_avg_ms(l.avg_ms() / k);
    l.set_p50_ms(l.p50_ms() / k);
    l.set_p90_ms(l.p90_ms() / k);
    l.set_p95_ms(l.p95_ms() / k);
    l.set_p99_ms(l.p99_ms() / k);
    l.set_max_ms(l.max_ms() / k);
    l.set_throughput_samples_per_s(l.throughput_samples_per_s() * k);
    if (l.has_energy_per_query_j()) l.set_energy_per_query_j(l.energy_per_query_j() / k);
    if (l.has_energy_per_sample_j()) l.set_energy_per_sample_j(l.energy_per_sample_j() / k);
  }
  if (result.has_server()) {
    auto& server = *result.mutable_server();
    server.set_latency_bound_ms(server.latency_bound_ms() / k);
    server.set_capacity_qps(server.capacity_qps() * k);
    if (server.has_max_qps()) server.set_max_qps(server.max_qps() * k);
    if (server.has_p99_ms()) server.set_p99_ms(server.p99_ms() / k);
    for (auto& trial : *server.mutable_trials()) {
      trial.set_rate_qps(trial.rate_qps() * k);
      trial.set_p99_ms(trial.p99_ms() / k);
    }
  }
  for (auto& sample : samples) sample.t_s /= k;
  result.mutable_modelled_time()->set_dilation(k);
}

namespace {

std::int64_t divided(std::int64_t ns, double k) { return std::llround(static_cast<double>(ns) / k); }

}  // namespace

EpochResult undilated(EpochResult epoch, double dilation) {
  if (dilation == 1) return epoch;
  epoch.stall_ns = divided(epoch.stall_ns, dilation);
  epoch.compute_ns = divided(epoch.compute_ns, dilation);
  epoch.e2e_ns = divided(epoch.e2e_ns, dilation);
  return epoch;
}

TrainingResult undilated(TrainingResult result, double dilation) {
  if (dilation == 1) return result;
  for (auto& e : result.epochs) e = undilated(std::move(e), dilation);
  for (auto& m : result.minibatches) {
    m.stall_ns = divided(m.stall_ns, dilation);
    m.compute_ns = divided(m.compute_ns, dilation);
  }
  return result;
}

InferenceResult undilated(InferenceResult result, double dilation) {
  if (dilation == 1) return result;
  for (auto& ns : result.latencies_ns) ns = divided(ns, dilation);
  if (!result.latencies_ns.empty()) result.latency = latency_stats(result.latencies_ns);
  result.timed_ns = divided(result.timed_ns, dilation);
  result.samples_per_s *= dilation;
  if (result.server) result.server = undilated(std::move(*result.server), dilation);
  return result;
}

ServerSearch undilated(ServerSearch search, double dilation) {
  if (dilation == 1) return search;
  search.settings.latency_bound_ns = divided(search.settings.latency_bound_ns, dilation);
  search.settings.min_duration_s /= dilation;
  search.capacity_qps *= dilation;
  search.start_qps *= dilation;
  for (auto& trial : search.trials) trial = undilated(trial, dilation);
  for (auto& ns : search.best_run.latencies_ns) ns = divided(ns, dilation);
  search.best_run.trial = search.best ? search.trials[*search.best] : search.best_run.trial;
  search.best_run.span_ns = divided(search.best_run.span_ns, dilation);
  return search;
}

ServerTrial undilated(ServerTrial trial, double dilation) {
  trial.rate_qps *= dilation;
  trial.p99_ns = divided(trial.p99_ns, dilation);
  return trial;
}

QueryEnergy undilated(QueryEnergy energy, double dilation) {
  energy.energy_j /= dilation;
  energy.per_query_j /= dilation;
  energy.per_sample_j /= dilation;
  if (energy.incremental_per_query_j) *energy.incremental_per_query_j /= dilation;
  return energy;
}

}  // namespace jetchar::experiments
