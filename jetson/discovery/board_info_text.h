// Human-readable rendering of a BoardInfo for `jetchar device info`: one section per subsystem,
// a unit on every figure, absent things named with the reason.
#pragma once

#include <string>

#include "jetson/discovery/board_info.h"

namespace jetchar::jetson {

std::string to_text(const BoardInfo& info, const BoardOrigin& origin);

}  // namespace jetchar::jetson
