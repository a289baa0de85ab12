// `jetchar device info`: discovers the board (this machine, a Jetson, another root, or a
// simulated board expanded from a fixture) and prints it as text or JSON.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "cli/command.h"
#include "jetson/board_description.h"
#include "jetson/discovery/board_info_json.h"
#include "jetson/discovery/board_info_text.h"

namespace {

struct DeviceInfoOptions {
  std::string root = "/";
  bool root_given = false;
  std::string board = "auto";
  bool json = false;
};

void run_device_info(const DeviceInfoOptions& options) {
  using namespace jetchar::jetson;
  const BoardDescription board = describe_board(
      options.board, options.root_given ? std::optional<std::filesystem::path>(options.root) : std::nullopt);
  const std::string text =
      options.json ? to_json(board.info, board.origin).dump(2) + "\n" : to_text(board.info, board.origin);
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
