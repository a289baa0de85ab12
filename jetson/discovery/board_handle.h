// The board a command works on, from `--board` and `--root`: this machine ("/"), a directory
// that plays "/", or a simulated board (a fixture expanded into a directory and kept alive by its
// behaviour model). Every command that touches a board opens it the same way.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "jetson/discovery/board_info.h"
#include "jetson/simulated/simulated_board.h"
#include "sysfs/root.h"

namespace jetchar::jetson {

struct BoardHandle {
  std::unique_ptr<SimulatedBoard> sim;
  std::unique_ptr<sysfs::Root> root;
  BoardRequest request = BoardRequest::kAuto;
  std::string label;                ///< "this machine (/)", "sim:agx-orin-r36 (simulated, temporary)"
  std::filesystem::path state_dir;  ///< where the change journal lives
  bool temporary = false;           ///< a simulated board that vanishes at exit

  bool simulated() const { return sim != nullptr; }
  /// The simulated board's behaviour model, run after every control write; empty otherwise.
  std::function<void()> after_write() const;
  /// "host", "jetson" or "sim:<fixture>", as results record it.
  std::string kind() const;
};

/// Opens `board` ("auto", "host", "jetson" or "sim:<fixture>") with an optional `root_dir` that
/// plays "/" (for sim: the directory the board lives in, persisting between invocations).
/// `state_dir` defaults to /var/lib/jetchar under the board's root. Throws std::invalid_argument
/// for an unknown board kind or fixture, sysfs::IoError for a root that does not exist.
BoardHandle open_board(std::string_view board, const std::optional<std::filesystem::path>& root_dir = std::nullopt,
                       const std::optional<std::filesystem::path>& state_dir = std::nullopt);

}  // namespace jetchar::jetson
