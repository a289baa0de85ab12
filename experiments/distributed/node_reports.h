// After a data-parallel training across several nodes, each node's first rank tells node 0's what
// its own board measured and whether its mode held (proto::NodeReport), through the rendezvous's
// store (jetchar/report/<node_rank>). Node 0's record is the run, so it takes every node's energy
// (world_energy.h) and is INVALID when any board's mode changed during the run; the other nodes'
// records keep their own board's figures and their own verdict, and never wait for the others.
#pragma once

#include <string>
#include <vector>

#include "experiments/distributed/rank_group.h"
#include "proto/run_result.pb.h"

namespace jetchar::experiments::distributed {

/// The store key of node `node_rank`'s report.
std::string report_key(int node_rank);

/// A node other than 0: publishes its report and returns once the store holds it (its process
/// may end at once after).
void publish_node_report(RankGroup& group, const proto::NodeReport& report);

/// Node 0: the reports of nodes 1 .. nnodes-1, each waited for up to the rendezvous's timeout.
/// Throws std::runtime_error naming a node that sent none in time, or one that does not parse.
std::vector<proto::NodeReport> read_node_reports(RankGroup& group, int nnodes);

/// Node 0's record judged with every node's report (its own included): a board whose mode changed
/// during the run makes it INVALID, naming each such node and what changed; otherwise a node whose
/// own run was not OK makes an OK record FAILED, naming the node and its reason.
void judge_node_reports(const std::vector<proto::NodeReport>& nodes, proto::RunResult& record);

}  // namespace jetchar::experiments::distributed
