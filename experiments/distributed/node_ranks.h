// A node's ranks of a data-parallel run, from its first rank (the process that records the run):
// it hosts the rendezvous (node 0) or joins node 0's, publishes the run's resolved spec for the
// ranks it starts, starts the node's other nproc_per_node - 1 ranks (`jetchar rank-worker`), and
// waits until the whole world has joined. After training it names the rank whose loss ended the
// run and stops whatever still runs; what it gathered becomes the record's DistributedOutcome.
#pragma once

#include <memory>
#include <optional>

#include "experiments/distributed/gradient_all_reduce.h"
#include "experiments/distributed/rank_group.h"
#include "experiments/distributed/rank_processes.h"
#include "experiments/training/training_runner.h"
#include "proto/experiment_spec.pb.h"
#include "proto/run_result.pb.h"

namespace jetchar::experiments::distributed {

/// The place of a node's first rank in the world workload.distributed describes.
RankPlace first_rank_of_node(const proto::DistributedSpec& spec);
/// The rendezvous workload.distributed describes (resolved).
Rendezvous rendezvous_of(const proto::DistributedSpec& spec);
/// The key under which a node's first rank publishes the spec for the ranks it starts.
std::string spec_key(int node_rank);

class NodeRanks {
 public:
  /// Throws std::invalid_argument for a backend LibTorch lacks, std::runtime_error when the world
  /// does not come together (naming the missing or dead rank).
  explicit NodeRanks(const proto::ExperimentSpec& resolved);
  ~NodeRanks();

  DataParallel& data_parallel() { return *data_parallel_; }
  const RankPlace& place() const { return group_->place(); }
  /// The rendezvous, whose store the nodes' first ranks also tell each other through
  /// (mode_agreement.h, node_reports.h).
  RankGroup& group() { return *group_; }

  /// After training: waits for the node's ranks (a failed training: for the one that died, if one
  /// did) and stops the rest. Returns the rank that ended the run, if any.
  std::optional<RankExit> end(bool trained);

 private:
  std::unique_ptr<RankGroup> group_;
  RankProcesses processes_;
  std::unique_ptr<GradientAllReduce> data_parallel_;
};

/// The record's view of a data-parallel training: world, backend, global batch, every rank's
/// figures per epoch and the slowest rank.
proto::DistributedOutcome distributed_outcome(const TrainingResult& trained, const proto::ExperimentSpec& resolved,
                                              int rank);

}  // namespace jetchar::experiments::distributed
