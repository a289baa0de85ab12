// After a data-parallel training across several nodes, each node's first rank tells node 0's what
// its own board measured and whether its mode held (proto::NodeReport), through the rendezvous's
// store (jetchar/report/<node_rank>). Node 0's record is the run, so it takes every node's energy
// (world_energy.h) and is INVALID when any board's mode changed during the run; the other nodes'
// records keep their own board's figures and their own verdict, and never wait for the others.
// Node 0 waits for a report only while its node beats: a node killed after training ends the
// wait in seconds.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "experiments/distributed/rank_group.h"
#include "proto/run_result.pb.h"

namespace jetchar::experiments::distributed {

/// The store key of node `node_rank`'s report.
std::string report_key(int node_rank);

/// A node other than 0: publishes its report and returns once the store holds it (its process
/// may end at once after).
void publish_node_report(RankGroup& group, const proto::NodeReport& report);

/// How long node 0 waits for a node's report while that node gives no sign of life (NodeBeat): a node
/// that died after training is named after this, not after the rendezvous's timeout (30 min unless set).
inline constexpr std::chrono::milliseconds kNodeSilence{10000};

/// A node other than 0, from the start of its training until its report is published: counts its
/// beat up in the store (jetchar/beat/<node_rank>) every `every` on a thread of its own, so that node
/// 0 can tell a node still recording (stopping its measurement, aligning its meters) from one that
/// is gone. `group` must outlive it.
class NodeBeat {
 public:
  NodeBeat(RankGroup& group, int node_rank, std::chrono::milliseconds every = std::chrono::milliseconds(1000));
  ~NodeBeat();
  NodeBeat(const NodeBeat&) = delete;
  NodeBeat& operator=(const NodeBeat&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;
  std::thread thread_;
};

/// Node 0: the reports of nodes 1 .. nnodes-1, each waited for up to the rendezvous's timeout and
/// while its beat goes on. Throws std::runtime_error naming a node whose beat stopped for `silence`
/// before it reported (gone: killed, or its machine down), one that sent no report in time, or one
/// whose report does not parse.
std::vector<proto::NodeReport> read_node_reports(RankGroup& group, int nnodes,
                                                 std::chrono::milliseconds silence = kNodeSilence);

/// Node 0's record judged with every node's report (its own included): a board whose mode changed
/// during the run makes it INVALID, naming each such node and what changed; otherwise a node whose
/// own run was not OK makes an OK record FAILED, naming the node and its reason.
void judge_node_reports(const std::vector<proto::NodeReport>& nodes, proto::RunResult& record);

}  // namespace jetchar::experiments::distributed
