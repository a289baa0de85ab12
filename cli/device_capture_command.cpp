// `jetchar device capture [-o FILE]`: writes a board fixture manifest of everything jetchar reads on
// this board (jetson/simulated/board_capture.h), for a board we have not seen: send us the file, or run
// jetchar on it with --board sim:FILE. It reads only.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "cli/command.h"
#include "jetson/open_board.h"
#include "jetson/simulated/board_capture.h"

namespace {

struct CaptureCommandOptions {
  std::string board = "auto";
  std::string root;
  std::string output;
  bool keep_identifiers = false;
};

void run_capture(const CaptureCommandOptions& options) {
  using namespace jetchar::jetson;
  const std::optional<std::filesystem::path> root_dir =
      options.root.empty() ? std::nullopt : std::optional<std::filesystem::path>(options.root);
  const BoardHandle board = open_board(options.board, root_dir);
  CaptureOptions capture_options;
  capture_options.redact = !options.keep_identifiers;
  const BoardCapture capture = capture_board(*board.root, capture_options);

  if (options.output.empty() || options.output == "-") {
    std::fwrite(capture.manifest.data(), 1, capture.manifest.size(), stdout);
  } else {
    // Written whole to a temporary file, then renamed: a failed capture never leaves half a manifest.
    const std::string temporary = options.output + ".partial";
    {
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      out << capture.manifest;
      if (!out) throw std::invalid_argument(fmt::format("-o {}: cannot be written", options.output));
    }
    std::filesystem::rename(temporary, options.output);
  }
  std::fprintf(stderr, "captured %s: %zu files, %zu links, %zu folders, %zu failing reads%s\n", board.label.c_str(),
               capture.files, capture.links, capture.folders, capture.failing_reads,
               options.output.empty() ? "" : fmt::format(" -> {}", options.output).c_str());
  for (const auto& absent : capture.absent) std::fprintf(stderr, "  absent: %s\n", absent.c_str());
  for (const auto& note : capture.notes) std::fprintf(stderr, "  note: %s\n", note.c_str());
}

void add_device_capture_command(CLI::App& app) {
  CLI::App& device = jetchar::cli::command_group(app, "device", "Inspect and control the board");
  auto options = std::make_shared<CaptureCommandOptions>();
  CLI::App* capture = device.add_subcommand(
      "capture",
      "Write a board fixture manifest of every file, link and folder jetchar reads on this board (exact bytes, "
      "modes, failing reads), /etc/nv_tegra_release, the device-tree identity and the nvpmodel conf; serial numbers "
      "and MAC addresses redacted. It only reads. Run jetchar on the result with --board sim:FILE.");
  capture->add_option("-o,--output", options->output, "Manifest file to write (default: standard output)");
  capture->add_option("--board", options->board, "auto (default), jetson, host, or sim:<fixture>");
  capture->add_option("--root", options->root, "Directory that plays '/' (a copied board tree); default /");
  capture->add_flag("--keep-identifiers", options->keep_identifiers,
                    "Keep serial numbers and MAC addresses as they are (default: replaced by REDACTED)");
  jetchar::cli::add_examples(*capture,
                             "Examples:\n"
                             "  jetchar device capture -o my-board.manifest\n"
                             "  jetchar device info --board sim:my-board.manifest");
  capture->callback([options] { run_capture(*options); });
}

}  // namespace

JETCHAR_REGISTER_COMMAND(12, add_device_capture_command);
