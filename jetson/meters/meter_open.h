// Starting a meter that must be there: a meter named on a command line (`monitor --meter`,
// `meter read`) that cannot be opened is an error, not a run without readings.
#pragma once

#include <string_view>

#include "jetson/meters/serial_meter_reader.h"

namespace jetchar::jetson::meters {

/// Starts `reader` and waits for the outcome of its first attempt to open `device`. A device that
/// cannot be opened throws std::system_error with the open's errno, naming the protocol and the
/// device (a missing path is bad input, EACCES a permission problem); one that does not answer
/// within 10 s throws std::runtime_error. Either way the reader is stopped first: it would
/// otherwise keep retrying in the background and the command would end with status 0.
/// Reconnecting after a meter that was open goes away stays the reader's job.
void start_and_await_open(SerialMeterReader& reader, std::string_view device);

}  // namespace jetchar::jetson::meters
