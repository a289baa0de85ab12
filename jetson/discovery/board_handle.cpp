#include "jetson/discovery/board_handle.h"

#include "jetson/discovery/board_hooks.h"

namespace jetchar::jetson {

std::function<void()> BoardHandle::after_write() const {
  BoardHooks* board = hooks.get();
  return [board] { board->after_write(); };
}

std::string BoardHandle::recorded_kind(const BoardInfo& info) const {
  if (hooks->power_modelled()) return "simulated";
  return info.identity.soc ? "jetson" : "host";
}

}  // namespace jetchar::jetson
