#include "jetson/board_description.h"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

#include "jetson/open_board.h"
#include "jetson/simulated/board_fixture.h"
#include "jetson/simulated/simulated_board.h"
#include "jetson/simulated/simulated_board_hooks.h"
#include "sysfs/root.h"

namespace jetchar::jetson {

BoardDescription describe_board(std::string_view board, const std::optional<std::filesystem::path>& root_dir) {
  BoardOrigin origin;
  std::optional<ExpandedFixture> fixture;
  BoardRequest request = BoardRequest::kAuto;
  std::string root = root_dir ? root_dir->string() : std::string("/");
  const bool sim = board.rfind("sim:", 0) == 0;

  std::optional<BoardHandle> living;
  if ((sim && root_dir) || (root_dir && board == "auto" && SimulatedBoard::is_simulated_root(*root_dir))) {
    living.emplace(open_board(board, *root_dir));
    const SimulatedBoard& sim_board = dynamic_cast<SimulatedBoardHooks&>(*living->hooks).board();
    root = sim_board.root_dir().string();
    origin.board = "sim:" + sim_board.fixture();
    origin.simulated = true;
    origin.fixture = sim_board.fixture();
    origin.root = root;
    request = living->request;
  } else if (sim) {
    const std::string_view name = board.substr(4);
    if (name.empty())
      throw std::invalid_argument("--board sim: needs a fixture name or manifest path (sim:agx-orin-r36)");
    fixture.emplace(name);
    root = fixture->root_dir().string();
    origin.board = "sim:" + fixture->name();
    origin.simulated = true;
    origin.fixture = fixture->name();
  } else if (board == "host") {
    request = BoardRequest::kHost;
  } else if (board == "jetson") {
    request = BoardRequest::kJetson;
  } else if (board != "auto") {
    throw std::invalid_argument(
        fmt::format("--board '{}' is not valid; use auto, host, jetson or sim:<fixture>", board));
  }
  if (!origin.simulated) origin.root = root;
  // A fixture folder holds a manifest, not a tree: say how to use it instead of failing on /sys.
  std::error_code ec;
  if (!origin.simulated && std::filesystem::is_regular_file(std::filesystem::path(root) / "board.manifest", ec)) {
    throw std::invalid_argument(fmt::format(
        "--root {} is a board fixture (it holds board.manifest, not a board tree); use --board sim:{}", root, root));
  }

  BoardDescription description{discover_board_info(sysfs::Root(root), request), std::move(origin)};
  if (!description.origin.simulated) description.origin.board = std::string(to_string(description.info.identity.kind));
  return description;
}

}  // namespace jetchar::jetson
