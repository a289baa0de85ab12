#include "jetson/simulated/modelled_time_pacer.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <thread>
#include <tuple>
#include <utility>

namespace jetchar::jetson {

namespace {

// The throughput figures and clocks of the mode `info` reads back; nullopt with `why_not` set when
// the time model cannot pace it.
std::optional<std::pair<SocThroughput, ModeClocks>> pace_inputs(const BoardInfo& info, std::int64_t batch,
                                                                std::string& why_not) {
  const std::string family = info.identity.family.value_or("");
  const auto soc = soc_throughput(family);
  if (!soc) {
    why_not =
        fmt::format("the time model has no throughput figures for family '{}'", family.empty() ? "unknown" : family);
    return std::nullopt;
  }
  ModeClocks clocks;
  clocks.online_cores = static_cast<int>(info.cpu.online.size());
  // The fastest active cluster: the training thread that dispatches kernels runs there.
  std::int64_t cpu_khz = 0;
  for (const auto& policy : info.cpu.policies) {
    if (!policy.affected_cpus.empty() && policy.cur_freq_khz) cpu_khz = std::max(cpu_khz, *policy.cur_freq_khz);
  }
  clocks.cpu_ghz = static_cast<double>(cpu_khz) / 1e6;
  const auto& gpu = info.gpu.gpu;
  clocks.gpu_ghz = gpu && gpu->cur_freq_hz ? static_cast<double>(*gpu->cur_freq_hz) / 1e9 : 0.0;
  clocks.emc_ghz = info.emc.cur_rate_hz ? static_cast<double>(*info.emc.cur_rate_hz) / 1e9 : 0.0;
  if (clocks.online_cores <= 0 || clocks.cpu_ghz <= 0 || clocks.gpu_ghz <= 0 || clocks.emc_ghz <= 0) {
    why_not = fmt::format(
        "the time model needs the mode's cores and CPU/GPU/EMC clocks; read back: {} cores, CPU {} GHz, "
        "GPU {} GHz, EMC {} GHz",
        clocks.online_cores, clocks.cpu_ghz, clocks.gpu_ghz, clocks.emc_ghz);
    return std::nullopt;
  }
  if (batch <= 0) {
    why_not = fmt::format("the time model needs a positive batch size, got {}", batch);
    return std::nullopt;
  }
  return std::pair{*soc, clocks};
}

}  // namespace

std::unique_ptr<ModelledTimePacer> ModelledTimePacer::for_training(SimulatedBoard& board, const BoardInfo& info,
                                                                   const ModelWork& work, const FetchWork& fetch,
                                                                   std::int64_t batch, std::string& why_not) {
  const auto inputs = pace_inputs(info, batch, why_not);
  if (!inputs) return nullptr;
  return std::make_unique<ModelledTimePacer>(board, inputs->first, inputs->second, work, fetch, batch, 1);
}

std::unique_ptr<ModelledTimePacer> ModelledTimePacer::for_inference(SimulatedBoard& board, const BoardInfo& info,
                                                                    const ModelWork& work, std::int64_t batch,
                                                                    std::int64_t warmup, std::string& why_not) {
  const auto inputs = pace_inputs(info, batch, why_not);
  if (!inputs) return nullptr;
  // The last warm-up query calibrates: the first ones carry the host's one-time costs.
  return std::make_unique<ModelledTimePacer>(board, inputs->first, inputs->second, work, std::nullopt, batch,
                                             std::max<std::int64_t>(1, warmup));
}

namespace {

MinibatchWork work_of(const ModelWork& work, std::int64_t samples, bool inference) {
  const auto batch = static_cast<double>(samples);
  return inference ? inference_work(work, batch) : training_work(work, batch);
}

// The busy shares over a minibatch's stall and compute: the GPU idles while the loop waits for
// data, and a loader (a worker, or the loop itself) keeps a core busy meanwhile.
std::pair<double, double> busy_shares(const MinibatchTime& compute, double stall_s) {
  const double period = stall_s + compute.total_s;
  if (period <= 0) return {compute.cpu_busy, compute.gpu_busy};
  return {(compute.cpu_busy * compute.total_s + stall_s) / period, compute.gpu_busy * compute.total_s / period};
}

}  // namespace

ModelledTimePacer::ModelledTimePacer(SimulatedBoard& board, const SocThroughput& soc, const ModeClocks& clocks,
                                     const ModelWork& work, const std::optional<FetchWork>& fetch, std::int64_t batch,
                                     std::int64_t calibration)
    : board_(board),
      soc_(soc),
      clocks_(clocks),
      work_(work),
      fetch_(fetch),
      batch_(batch),
      full_(modelled_minibatch_time(work_of(work, batch, !fetch), soc, clocks)),
      calibration_left_(std::max<std::int64_t>(1, calibration)) {
  if (fetch_) {
    full_fetch_ = modelled_fetch_time(*fetch_, static_cast<double>(batch), soc, clocks, full_.total_s, false);
  }
  const auto [cpu_busy, gpu_busy] = busy_shares(full_, full_fetch_.stall_s);
  board_.pin_host_utilization(cpu_busy);
  board_.pin_gpu_load(gpu_busy);
  // At once, not at the next background refresh: the run's power must not step inside it.
  board_.update_sensors();
}

void ModelledTimePacer::set_idle(bool idle) { board_.set_idle(idle); }

ModelledTimePacer::~ModelledTimePacer() {
  board_.set_idle(false);
  board_.pin_host_utilization(std::nullopt);
  board_.pin_gpu_load(std::nullopt);
}

double ModelledTimePacer::modelled_s(std::int64_t samples) const {
  return samples == batch_ ? full_.total_s
                           : modelled_minibatch_time(work_of(work_, samples, !fetch_), soc_, clocks_).total_s;
}

bool ModelledTimePacer::wait_until(Clock::time_point deadline) {
  if (Clock::now() > deadline) return true;  // the host's delay past the board's end is not the board's
  std::this_thread::sleep_until(deadline);
  // Waking later (the scheduler's latency, milliseconds on a loaded host) is the host's delay too,
  // which the runners leave out as they leave out an overrun.
  return false;
}

ModelledTimePacer::Clock::time_point ModelledTimePacer::pace(Clock::time_point compute_start, std::int64_t samples) {
  const double modelled = modelled_s(samples);
  if (!calibrated_) {
    if (--calibration_left_ > 0) return Clock::now();  // an untimed warm-up query, at the host's pace
    calibrated_ = true;
    const double host = std::chrono::duration<double>(Clock::now() - compute_start).count();
    if (host > modelled) dilation_ = kDilationMargin * host / modelled;
  }
  const auto end = compute_start + dilated(modelled);
  const bool overran = wait_until(end) || fetch_overran_;
  fetch_overran_ = false;
  ++(overran ? host_slower_ : paced_);
  return end;
}

ModelledTimePacer::Clock::time_point ModelledTimePacer::pace_fetch(Clock::time_point fetch_start, std::int64_t index,
                                                                   std::int64_t samples) {
  if (!fetch_ || !calibrated_) return Clock::now();
  // A full minibatch within an epoch is the common case; an epoch's first or a short last one is not.
  double stall = full_fetch_.stall_s;
  if (samples != batch_ || index == 0) {
    const auto samples_d = static_cast<double>(samples);
    stall = modelled_fetch_time(*fetch_, samples_d, soc_, clocks_, modelled_s(samples), index == 0).stall_s;
  }
  const auto end = fetch_start + dilated(stall);
  fetch_overran_ = wait_until(end);
  return end;
}

ModelledTimePacer::Clock::duration ModelledTimePacer::dilated(double modelled_s) const {
  return std::chrono::ceil<Clock::duration>(std::chrono::duration<double>(dilation_ * modelled_s));
}

PacedTime ModelledTimePacer::paced_time() const {
  PacedTime paced;
  paced.time_model = std::string(time_model_label());
  paced.minibatch_compute_s = full_.total_s;
  paced.minibatch_stall_s = full_fetch_.stall_s;
  std::tie(paced.cpu_busy, paced.gpu_busy) = busy_shares(full_, full_fetch_.stall_s);
  paced.paced = paced_;
  paced.host_slower = host_slower_;
  paced.dilation = dilation_;
  return paced;
}

}  // namespace jetchar::jetson
