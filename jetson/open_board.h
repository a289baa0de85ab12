// Opening the board a command names: the one place that knows every kind of board, so that
// jetson/discovery/ (what a board has) never includes jetson/simulated/ (a board jetchar models).
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>

#include "jetson/discovery/board_handle.h"

namespace jetchar::jetson {

/// Opens `board` ("auto", "host", "jetson" or "sim:<fixture>") with an optional `root_dir` that
/// plays "/" (for sim: the directory the board lives in, persisting between invocations; a
/// directory a simulated board lives in opens as that board whatever `board` says).
/// `state_dir` defaults to /var/lib/jetchar under the board's root. Throws std::invalid_argument
/// for an unknown board kind or fixture, sysfs::IoError for a root that does not exist.
BoardHandle open_board(std::string_view board, const std::optional<std::filesystem::path>& root_dir = std::nullopt,
                       const std::optional<std::filesystem::path>& state_dir = std::nullopt);

}  // namespace jetchar::jetson
