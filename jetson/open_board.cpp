#include "jetson/open_board.h"

#include <fmt/format.h>

#include <stdexcept>

#include "jetson/simulated/simulated_board_hooks.h"

namespace jetchar::jetson {

namespace fs = std::filesystem;

BoardHandle open_board(std::string_view board, const std::optional<fs::path>& root_dir,
                       const std::optional<fs::path>& state_dir) {
  BoardHandle handle;
  std::unique_ptr<SimulatedBoard> sim;
  if (board.rfind("sim:", 0) == 0) {
    const std::string fixture(board.substr(4));
    if (fixture.empty())
      throw std::invalid_argument("--board sim: needs a fixture name or manifest path (sim:agx-orin-r36)");
    sim = std::make_unique<SimulatedBoard>(fixture, root_dir);
    handle.root = std::make_unique<sysfs::Root>(sim->root_dir());
    handle.temporary = !root_dir.has_value();
    handle.request = BoardRequest::kJetson;
    handle.label = fmt::format("sim:{} (simulated{})", sim->fixture(),
                               handle.temporary ? ", temporary" : ", in " + sim->root_dir().string());
  } else if (board == "auto" || board == "jetson" || board == "host") {
    const fs::path dir = root_dir.value_or("/");
    handle.request = board == "host"     ? BoardRequest::kHost
                     : board == "jetson" ? BoardRequest::kJetson
                                         : BoardRequest::kAuto;
    if (root_dir && SimulatedBoard::is_simulated_root(dir)) {
      sim = std::make_unique<SimulatedBoard>("", dir);
      handle.label = fmt::format("sim:{} (simulated, in {})", sim->fixture(), dir.string());
    } else {
      handle.label = root_dir ? fmt::format("root {}", dir.string()) : "this machine (/)";
    }
    handle.root = std::make_unique<sysfs::Root>(dir);
    handle.kind_name = std::string(board);
  } else {
    throw std::invalid_argument(
        fmt::format("--board '{}' is not valid; use auto, host, jetson or sim:<fixture>", board));
  }
  if (sim) {
    handle.kind_name = "sim:" + sim->fixture();
    handle.hooks = std::make_unique<SimulatedBoardHooks>(std::move(sim));
  }
  // The state lives with the board: /var/lib/jetchar under its root (the host's own on "/").
  handle.state_dir = state_dir.value_or(handle.root->resolve("/var/lib/jetchar"));
  return handle;
}

}  // namespace jetchar::jetson
