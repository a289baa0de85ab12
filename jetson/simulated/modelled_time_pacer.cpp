#include "jetson/simulated/modelled_time_pacer.h"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

namespace jetchar::jetson {

std::unique_ptr<ModelledTimePacer> ModelledTimePacer::for_training(SimulatedBoard& board, const BoardInfo& info,
                                                                   const ModelWork& work, std::int64_t batch,
                                                                   std::string& why_not) {
  const std::string family = info.identity.family.value_or("");
  const auto soc = soc_throughput(family);
  if (!soc) {
    why_not =
        fmt::format("the time model has no throughput figures for family '{}'", family.empty() ? "unknown" : family);
    return nullptr;
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
    return nullptr;
  }
  if (batch <= 0) {
    why_not = fmt::format("the time model needs a positive batch size, got {}", batch);
    return nullptr;
  }
  return std::make_unique<ModelledTimePacer>(board, *soc, clocks, work, batch);
}

ModelledTimePacer::ModelledTimePacer(SimulatedBoard& board, const SocThroughput& soc, const ModeClocks& clocks,
                                     const ModelWork& work, std::int64_t batch)
    : board_(board),
      soc_(soc),
      clocks_(clocks),
      work_(work),
      batch_(batch),
      full_(modelled_minibatch_time(training_work(work, static_cast<double>(batch)), soc, clocks)) {
  board_.pin_host_utilization(full_.cpu_busy);
  board_.pin_gpu_load(full_.gpu_busy);
  // At once, not at the next background refresh: the run's power must not step inside it.
  board_.update_sensors();
}

ModelledTimePacer::~ModelledTimePacer() {
  board_.pin_host_utilization(std::nullopt);
  board_.pin_gpu_load(std::nullopt);
}

ModelledTimePacer::Clock::time_point ModelledTimePacer::pace(Clock::time_point compute_start, std::int64_t samples) {
  const double seconds =
      samples == batch_
          ? full_.total_s
          : modelled_minibatch_time(training_work(work_, static_cast<double>(samples)), soc_, clocks_).total_s;
  const auto deadline =
      compute_start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  if (Clock::now() > deadline) {
    ++host_slower_;
  } else {
    std::this_thread::sleep_until(deadline);
    ++paced_;
  }
  return Clock::now();
}

PacedTime ModelledTimePacer::paced_time() const {
  PacedTime paced;
  paced.time_model = std::string(time_model_label());
  paced.minibatch_compute_s = full_.total_s;
  paced.cpu_busy = full_.cpu_busy;
  paced.gpu_busy = full_.gpu_busy;
  paced.paced = paced_;
  paced.host_slower = host_slower_;
  return paced;
}

}  // namespace jetchar::jetson
