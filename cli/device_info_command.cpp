// `jetchar device info`: discovers the board (this machine, a Jetson, another root, or a
// simulated board expanded from a fixture) and prints it as text or JSON.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include "cli/command.h"
#include "jetson/discovery/board_handle.h"
#include "jetson/discovery/board_info.h"
#include "jetson/discovery/board_info_json.h"
#include "jetson/discovery/board_info_text.h"
#include "jetson/simulated/board_fixture.h"
#include "sysfs/root.h"

namespace {

struct DeviceInfoOptions {
  std::string root = "/";
  bool root_given = false;
  std::string board = "auto";
  bool json = false;
};

void run_device_info(const DeviceInfoOptions& options) {
  using namespace jetchar::jetson;
  BoardOrigin origin;
  std::optional<ExpandedFixture> fixture;
  BoardRequest request = BoardRequest::kAuto;
  std::string root_dir = options.root;

  // A simulated board kept in a directory (`--board sim:X --root D`, as the other device commands
  // take it, or a --root that holds one): the board as it lives there, changed by `device set`.
  std::optional<BoardHandle> living;
  if ((options.board.rfind("sim:", 0) == 0 && options.root_given) ||
      (options.root_given && options.board == "auto" && SimulatedBoard::is_simulated_root(options.root))) {
    living.emplace(open_board(options.board, std::filesystem::path(options.root)));
    root_dir = living->sim->root_dir().string();
    origin.board = "sim:" + living->sim->fixture();
    origin.simulated = true;
    origin.fixture = living->sim->fixture();
    origin.root = root_dir;
    request = living->request;
  } else if (options.board.rfind("sim:", 0) == 0) {
    const std::string name = options.board.substr(4);
    if (name.empty())
      throw std::invalid_argument("--board sim: needs a fixture name or manifest path (sim:agx-orin-r36)");
    fixture.emplace(name);
    root_dir = fixture->root_dir().string();
    origin.board = "sim:" + fixture->name();
    origin.simulated = true;
    origin.fixture = fixture->name();
  } else if (options.board == "host") {
    request = BoardRequest::kHost;
  } else if (options.board == "jetson") {
    request = BoardRequest::kJetson;
  } else if (options.board != "auto") {
    throw std::invalid_argument(
        fmt::format("--board '{}' is not valid; use auto, host, jetson or sim:<fixture>", options.board));
  }
  if (!origin.simulated) origin.root = root_dir;
  // A fixture folder holds a manifest, not a tree: say how to use it instead of failing on /sys.
  std::error_code ec;
  if (!origin.simulated && std::filesystem::is_regular_file(std::filesystem::path(root_dir) / "board.manifest", ec)) {
    throw std::invalid_argument(
        fmt::format("--root {} is a board fixture (it holds board.manifest, not a board tree); use --board sim:{}",
                    root_dir, root_dir));
  }

  const jetchar::sysfs::Root root(root_dir);
  const BoardInfo info = discover_board_info(root, request);
  if (!origin.simulated) origin.board = std::string(to_string(info.identity.kind));
  const std::string text = options.json ? to_json(info, origin).dump(2) + "\n" : to_text(info, origin);
  std::fwrite(text.data(), 1, text.size(), stdout);
}

void add_device_info_command(CLI::App& app) {
  CLI::App& device = jetchar::cli::command_group(app, "device", "Inspect and control the board");
  auto options = std::make_shared<DeviceInfoOptions>();
  CLI::App* info = device.add_subcommand(
      "info",
      "Discover the board: identity, L4T/JetPack, CPU, GPU, EMC, INA3221 rails, fan, thermal zones, "
      "host sensors. Absent things are shown as absent.");
  info->add_option("--root", options->root,
                   "Directory that plays '/' (a copied board tree); default / (this machine); with --board "
                   "sim:<fixture>, the directory the simulated board lives in (as for `device set`)")
      ->each([options](const std::string&) { options->root_given = true; });
  info->add_option("--board", options->board,
                   "auto (default: jetson if the device tree says tegra, else host), host, jetson, or "
                   "sim:<fixture> (a fixture name from share/jetchar/boards when installed, tests/fixtures/boards in "
                   "the source tree, or a path to a board.manifest; "
                   "expanded into a temporary root; output is marked simulated)");
  info->add_flag("--json", options->json, "Print JSON (units in key names) instead of text");
  jetchar::cli::add_examples(*info,
                             "Examples:\n"
                             "  jetchar device info\n"
                             "  jetchar device info --board sim:agx-thor-r38\n"
                             "  jetchar device info --board sim:agx-orin-r36 --json");
  info->callback([options] { run_device_info(*options); });
}

}  // namespace

JETCHAR_REGISTER_COMMAND(10, add_device_info_command);
