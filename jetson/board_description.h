// The board `jetchar device info` describes, from `--board` and `--root`: discovered as it stands,
// with where it came from (BoardOrigin), never changed. Which board the two options name follows
// open_board() (jetson/open_board.h), except that a simulated board given without a directory is only
// expanded from its fixture (no behaviour model runs: the description is the fixture's as captured).
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>

#include "jetson/discovery/board_info.h"

namespace jetchar::jetson {

struct BoardDescription {
  BoardInfo info;
  BoardOrigin origin;
};

/// `board` is "auto", "host", "jetson" or "sim:<fixture>"; `root_dir` the directory given as
/// --root (nullopt: this machine's /).
/// - "sim:<fixture>" with a root_dir, or "auto" with a root_dir that holds a simulated board: the
///   simulated board living there, as `device set` left it;
/// - "sim:<fixture>" alone: the fixture expanded into a temporary root;
/// - otherwise the root as host, jetson or (auto) as its device tree says.
/// Throws std::invalid_argument for an unknown board kind, an empty fixture name, or a root that
/// is a fixture folder (naming the --board sim: that reads it).
BoardDescription describe_board(std::string_view board, const std::optional<std::filesystem::path>& root_dir);

}  // namespace jetchar::jetson
