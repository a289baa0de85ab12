// JSON form of a BoardInfo (`jetchar device info --json`, the golden files under
// tests/expected/device-info/, and the context block of results). Units are in key names
// (`_khz`, `_hz`, `_mv`, `_ma`, `_mw`, `_mc` for milli-degrees Celsius); a missing value is null;
// a missing subsystem is an object with an "absent" reason.
#pragma once

#include <nlohmann/json.hpp>

#include "jetson/discovery/board_info.h"

namespace jetchar::jetson {

/// Version of the JSON layout; bump when keys change meaning.
inline constexpr int kDeviceInfoSchemaVersion = 1;

nlohmann::ordered_json to_json(const BoardInfo& info, const BoardOrigin& origin);

}  // namespace jetchar::jetson
