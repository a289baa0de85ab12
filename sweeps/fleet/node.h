// One node of a fleet as `jetchar sweep task` sees it: its name, its board (the node config), a
// board left changed by a killed task restored before anything else (or the node drained when it
// cannot be), and the runs of its chunk that another node stored already.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "jetson/discovery/board_handle.h"
#include "proto/sweep_spec.pb.h"

namespace jetchar::sweeps {

/// This node's name: `option`, else $SLURMD_NODENAME (set in a Slurm job), else the host name.
std::string fleet_node_name(const std::string& option);

/// The node's board config: the file `pattern` names ("%n": the node's name), loaded. Throws
/// std::invalid_argument naming the file when it is absent, and SpecError when it is not one.
proto::NodeConfig load_fleet_node_config(const std::string& pattern, const std::string& node);

/// Restores the change journal a killed task left on the node's board (the board `open_board`
/// opens) and returns how many attributes it restored (0: nothing was pending). A board that
/// cannot be opened or restored must take no more runs: the node drains itself (scontrol) and
/// this throws std::runtime_error naming the node, the error and whether the drain worked.
std::size_t restore_node_board(const std::function<jetson::BoardHandle()>& open_board, const std::string& node);

/// Of `run_ids` of sweep `sweep_name`, those another node's store under `results`/nodes/ holds
/// already (run id -> that node): a task requeued onto another node must not run them again. A
/// store another node is creating right now holds no runs yet.
std::map<std::string, std::string> runs_stored_by_other_nodes(const std::filesystem::path& results,
                                                              const std::string& node, const std::string& sweep_name,
                                                              const std::set<std::string>& run_ids);

}  // namespace jetchar::sweeps
