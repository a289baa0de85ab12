// Whether every board of a world of several nodes is in its power mode, agreed by the nodes'
// first ranks. Each of them checks only its own board; a run of several boards measures all of
// them, so it is valid only when every board is in its mode. After the world has joined and
// before anything trains, each first rank publishes its verdict in the rendezvous's store
// (jetchar/mode/<node_rank>) and reads every node's, so that all of them record the same status:
// a board not in its mode makes the run INVALID on every node, naming the node, instead of one
// node leaving and the others failing with a rendezvous that lacks it.
#pragma once

#include <string>
#include <vector>

#include "experiments/distributed/rank_group.h"

namespace jetchar::experiments::distributed {

/// The store key of node `node_rank`'s verdict.
std::string mode_key(int node_rank);

/// The world's verdict from every node's, in node order: empty when every one is empty (every
/// board in its mode), else the non-empty ones joined with "; ".
std::string world_mode_verdict(const std::vector<std::string>& verdicts);

/// Publishes this node's verdict `own` (empty: its board is in its mode; else why not, naming the
/// node) and returns world_mode_verdict of all `nnodes` nodes', each waited for up to the
/// rendezvous's timeout. Node 0 hosts the store and returns only once every other node has read
/// them all, so that none of them loses the store while it reads.
std::string agree_on_modes(RankGroup& group, int nnodes, const std::string& own);

}  // namespace jetchar::experiments::distributed
