#include "sweeps/fleet/node.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <stdexcept>

#include "results/store.h"
#include "sweeps/slurm/client.h"
#include "sweeps/slurm/submission.h"
#include "sweeps/spec_io.h"
#include "sysfs/change_journal.h"

namespace jetchar::sweeps {

namespace fs = std::filesystem;

std::string fleet_node_name(const std::string& option) {
  if (!option.empty()) return option;
  if (const char* env = std::getenv("SLURMD_NODENAME"); env != nullptr && *env != '\0') return env;
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return host;
}

proto::NodeConfig load_fleet_node_config(const std::string& pattern, const std::string& node) {
  const std::string file = node_config_path(pattern, node);
  if (!fs::exists(file)) {
    throw std::invalid_argument(
        fmt::format("--node-config {}: no such file for node {} (it names the node's board: "
                    "board: \"jetson\")",
                    file, node));
  }
  return load_node_config(file);
}

std::size_t restore_node_board(const std::function<jetson::BoardHandle()>& open_board, const std::string& node) {
  try {
    auto board = open_board();
    if (!sysfs::find_pending_journal(board.state_dir)) return 0;
    sysfs::ChangeJournal journal(*board.root, board.state_dir);
    const std::size_t count = journal.restore();
    board.hooks->after_write();
    return count;
  } catch (const std::exception& e) {
    const std::string drained = drain_node(node, fmt::format("jetchar: device restore failed: {}", e.what()));
    throw std::runtime_error(
        fmt::format("node {}: the board's change journal cannot be restored ({}); {}", node, e.what(), drained));
  }
}

std::map<std::string, std::string> runs_stored_by_other_nodes(const fs::path& results, const std::string& node,
                                                              const std::string& sweep_name,
                                                              const std::set<std::string>& run_ids) {
  std::map<std::string, std::string> stored;
  const fs::path own = results / "nodes" / node;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(results / "nodes", ec)) {
    if (entry.path() == own || !fs::exists(entry.path() / "results.db")) continue;
    std::optional<results::ResultsStore> other;
    try {
      other.emplace(entry.path() / "results.db", results::ResultsStore::Access::kReadOnly);
    } catch (const std::invalid_argument&) {
      continue;  // a node whose first task is creating its store right now: it holds no runs yet
    }
    for (const auto& run : run_ids) {
      if (!stored.count(run) && other->contains(sweep_name, run)) stored[run] = entry.path().filename().string();
    }
  }
  return stored;
}

}  // namespace jetchar::sweeps
