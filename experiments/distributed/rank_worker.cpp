#include "experiments/distributed/rank_worker.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <optional>
#include <stdexcept>
#include <thread>

#include "experiments/compute_threads.h"
#include "experiments/distributed/gradient_all_reduce.h"
#include "experiments/distributed/node_ranks.h"
#include "experiments/run_settings.h"
#include "experiments/training_phases.h"
#include "experiments/training_workload.h"
#include "jetson/control/control_interrupt.h"
#include "sysfs/root.h"

namespace jetchar::experiments::distributed {

void run_rank_worker(const Rendezvous& rendezvous, const RankPlace& place) {
  jetson::ControlInterrupt interrupt;
  RankGroup group(rendezvous, place);
  proto::ExperimentSpec spec;
  if (!spec.ParseFromString(group.read(spec_key(place.node_rank)))) {
    throw std::runtime_error(fmt::format("rank {}: the run's spec from the rendezvous does not parse", place.rank));
  }
  group.join();
  const auto& w = spec.workload();
  set_compute_threads(rank_threads(w, torch::get_num_threads()));
  GradientAllReduce data_parallel(group);
  // A phased run's phases in order, each on the model the one before left, as the recording rank
  // trains them (characterization_executor.cpp): every rank takes the same steps.
  const auto phases = phase_specs(spec);
  std::optional<TrainingWorkload> workload;
  for (std::size_t p = 0; p < phases.size(); ++p) {
    auto next = open_phase_workload(spec, phases, p, place.rank, place.world_size, workload ? &*workload : nullptr);
    workload = std::move(next);
    workload->config.data_parallel = &data_parallel;
    workload->config.stop_after = [&interrupt](const TrainingProgress&) { return interrupt.signal() != 0; };
    const auto trained = train(*workload->model, *workload->pipeline, workload->config, sysfs::Root("/"), w.model());
    if (trained.status != RunStatus::kOk) {
      throw std::runtime_error(fmt::format("rank {}: {}{}: {}", place.rank,
                                           phases.size() > 1 ? fmt::format("phase {}: ", p + 1) : "",
                                           run_status_name(trained.status), trained.error));
    }
    if (trained.stopped_early) return;
  }
}

}  // namespace jetchar::experiments::distributed
