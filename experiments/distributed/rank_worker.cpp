#include "experiments/distributed/rank_worker.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <stdexcept>
#include <thread>

#include "experiments/distributed/gradient_all_reduce.h"
#include "experiments/distributed/node_ranks.h"
#include "experiments/run_settings.h"
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
  torch::set_num_threads(rank_threads(w, torch::get_num_threads()));
  auto workload = open_training_workload(spec, place.rank, place.world_size);
  GradientAllReduce data_parallel(group);
  workload.config.data_parallel = &data_parallel;
  workload.config.stop_after = [&interrupt](const TrainingProgress&) { return interrupt.signal() != 0; };
  const auto trained = train(*workload.model, *workload.pipeline, workload.config, sysfs::Root("/"), w.model());
  if (trained.status != RunStatus::kOk) {
    throw std::runtime_error(
        fmt::format("rank {}: {}: {}", place.rank, run_status_name(trained.status), trained.error));
  }
}

}  // namespace jetchar::experiments::distributed
