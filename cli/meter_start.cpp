#include "cli/meter_start.h"

#include "jetson/meters/meter_open.h"

namespace jetchar::cli {

void start_meter(jetson::meters::SerialMeterReader& reader, const std::string& device) {
  jetson::meters::start_and_await_open(reader, device);
}

}  // namespace jetchar::cli
