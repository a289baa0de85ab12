// Starting an external meter named on the command line (`meter read`): the library's
// jetson::meters::start_and_await_open (jetson/meters/meter_open.h), which `monitor --meter` uses
// through its measurement session.
#pragma once

#include <string>

#include "jetson/meters/serial_meter_reader.h"

namespace jetchar::cli {

/// Starts `reader` and waits for the outcome of its first attempt to open the device. A device
/// that cannot be opened is an error (std::system_error with the open's errno, naming the device:
/// a missing path is bad input, EACCES a permission problem), not a run without readings: the
/// reader would keep retrying in the background and the command would end with status 0.
/// Reconnecting after a meter that was open goes away stays the reader's job.
void start_meter(jetson::meters::SerialMeterReader& reader, const std::string& device);

}  // namespace jetchar::cli
