#include "experiments/distributed/node_ranks.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <stdexcept>

namespace jetchar::experiments::distributed {

RankPlace first_rank_of_node(const proto::DistributedSpec& spec) {
  const int per_node = static_cast<int>(std::max<std::uint32_t>(1, spec.nproc_per_node()));
  const int nodes = static_cast<int>(std::max<std::uint32_t>(1, spec.nnodes()));
  const int node = static_cast<int>(spec.node_rank());
  return {node * per_node, per_node * nodes, 0, node};
}

Rendezvous rendezvous_of(const proto::DistributedSpec& spec) {
  Rendezvous rendezvous;
  if (!spec.master_addr().empty()) rendezvous.master_addr = spec.master_addr();
  rendezvous.master_port = static_cast<int>(spec.master_port());
  if (!spec.backend().empty()) rendezvous.backend = spec.backend();
  if (spec.timeout_s() > 0) {
    rendezvous.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(spec.timeout_s() * 1000));
  }
  return rendezvous;
}

std::string spec_key(int node_rank) { return fmt::format("jetchar/spec/{}", node_rank); }

NodeRanks::NodeRanks(const proto::ExperimentSpec& resolved) {
  const auto& d = resolved.workload().distributed();
  const auto rendezvous = rendezvous_of(d);
  const auto place = first_rank_of_node(d);
  group_ = std::make_unique<RankGroup>(rendezvous, place);
  group_->publish(spec_key(place.node_rank), resolved.SerializeAsString());
  const int per_node = static_cast<int>(d.nproc_per_node());
  for (int local = 1; local < per_node; ++local) {
    const int rank = place.rank + local;
    processes_.start(
        rank, {"rank-worker", "--rank", std::to_string(rank), "--local-rank", std::to_string(local), "--node-rank",
               std::to_string(place.node_rank), "--world-size", std::to_string(place.world_size), "--master-addr",
               rendezvous.master_addr, "--master-port", std::to_string(group_->port()), "--backend", rendezvous.backend,
               "--timeout-s", fmt::format("{}", std::chrono::duration<double>(rendezvous.timeout).count())});
  }
  group_->join([this]() -> std::optional<std::string> {
    if (auto exit = processes_.ended()) return exit->why + " before the rendezvous";
    return std::nullopt;
  });
  data_parallel_ = std::make_unique<GradientAllReduce>(*group_);
}

NodeRanks::~NodeRanks() {
  processes_.stop();
  data_parallel_.reset();
}

std::optional<RankExit> NodeRanks::end(bool trained) {
  if (trained) {
    const auto failures = processes_.wait_all(std::chrono::seconds(30));
    if (!failures.empty()) return failures.front();
    return std::nullopt;
  }
  // A rank that died makes the others' next collective fail at once; give its exit a moment to be
  // seen so that the record names it rather than the connection it broke.
  auto failure = processes_.failed_within(std::chrono::seconds(2));
  processes_.stop();
  return failure;
}

proto::DistributedOutcome distributed_outcome(const TrainingResult& trained, const proto::ExperimentSpec& resolved,
                                              int rank) {
  const auto& d = resolved.workload().distributed();
  proto::DistributedOutcome outcome;
  outcome.set_world_size(static_cast<std::uint32_t>(trained.world_size));
  outcome.set_rank(static_cast<std::uint32_t>(rank));
  outcome.set_backend(d.backend());
  outcome.set_global_batch(static_cast<std::uint32_t>(trained.world_size * resolved.workload().batch_size()));
  std::map<std::int64_t, double> busy;  // per rank: stall + compute over the epochs
  for (const auto& epoch : trained.epochs) {
    for (const auto& figures : epoch.ranks) {
      auto* r = outcome.add_ranks();
      r->set_rank(static_cast<std::uint32_t>(figures.rank));
      r->set_epoch(static_cast<std::uint32_t>(epoch.epoch));
      r->set_stall_s(figures.stall_ns / 1e9);
      r->set_compute_s(figures.compute_ns / 1e9);
      r->set_e2e_s(figures.e2e_ns / 1e9);
      r->set_samples(static_cast<std::uint64_t>(figures.samples));
      r->set_allreduce_s(figures.communication.allreduce_ns / 1e9);
      r->set_exposed_communication_s(figures.communication.exposed_ns / 1e9);
      r->set_allreduce_bytes(static_cast<std::uint64_t>(figures.communication.bytes));
      busy[figures.rank] += static_cast<double>(figures.stall_ns + figures.compute_ns);
    }
  }
  if (!busy.empty()) {
    const auto slowest =
        std::max_element(busy.begin(), busy.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    outcome.set_slowest_rank(static_cast<std::uint32_t>(slowest->first));
  }
  return outcome;
}

}  // namespace jetchar::experiments::distributed
