#include "jetson/meters/meter_open.h"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <stdexcept>
#include <system_error>
#include <thread>

namespace jetchar::jetson::meters {

void start_and_await_open(SerialMeterReader& reader, std::string_view device) {
  reader.start();
  // The first open happens at once on the reader's thread (a non-blocking open(2) and tcsetattr);
  // the bound only guards against a device that never answers.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    const auto status = reader.status();
    if (status.opens > 0) return;
    if (status.failed_opens > 0) {
      reader.stop();
      const int error = status.last_open_errno != 0 ? status.last_open_errno : EIO;
      throw std::system_error(error, std::generic_category(),
                              fmt::format("meter {}: cannot open {}", reader.protocol().name(), device));
    }
    if (std::chrono::steady_clock::now() > give_up) {
      reader.stop();
      throw std::runtime_error(
          fmt::format("meter {}: opening {} did not finish within 10 s", reader.protocol().name(), device));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace jetchar::jetson::meters
