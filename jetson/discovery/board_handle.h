// The board a command works on, from `--board` and `--root`: this machine ("/"), a directory
// that plays "/", or a simulated board (a fixture expanded into a directory and kept alive by its
// behaviour model). Every command that touches a board opens it the same way (jetson/open_board.h).
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "jetson/discovery/board_hooks.h"
#include "jetson/discovery/board_info.h"
#include "sysfs/root.h"

namespace jetchar::jetson {

struct BoardHandle {
  std::unique_ptr<sysfs::Root> root;
  /// What the board does around jetchar's actions (board_hooks.h); never null once opened.
  std::unique_ptr<BoardHooks> hooks = std::make_unique<BoardHooks>();
  BoardRequest request = BoardRequest::kAuto;
  std::string label;                ///< "this machine (/)", "sim:agx-orin-r36 (simulated, temporary)"
  std::filesystem::path state_dir;  ///< where the change journal lives
  bool temporary = false;           ///< a simulated board that vanishes at exit
  std::string kind_name;            ///< "host", "jetson", "auto" or "sim:<fixture>", as results record it

  /// The hooks' after_write as a function, for a ControlSession to run after every control write.
  std::function<void()> after_write() const;
  /// "host", "jetson", "auto" or "sim:<fixture>", as results record it.
  const std::string& kind() const { return kind_name; }
  /// The run context's board kind: "simulated" when the power figures are a model's, else
  /// "jetson" for a board `info` identifies as a Jetson, else "host".
  std::string recorded_kind(const BoardInfo& info) const;
};

}  // namespace jetchar::jetson
