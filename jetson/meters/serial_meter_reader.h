// Reads an external meter on a serial port (Boost.Asio serial_port) in its own thread. The
// caller never blocks on the meter: it drains readings when it likes. The reader resynchronises
// after garbage or partial frames, records every stretch without good data as a gap, and after a
// disconnect reopens the device path with exponential backoff until it comes back.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "jetson/meters/meter_protocol.h"
#include "jetson/meters/meter_reading.h"

namespace jetchar::jetson::meters {

struct SerialReaderOptions {
  std::filesystem::path device;
  std::chrono::milliseconds backoff_initial{50};
  std::chrono::milliseconds backoff_max{2000};
  /// Silence longer than this many expected intervals is a gap.
  double silence_factor = 3.0;
  /// Readings kept until drained; the oldest are dropped (and counted) beyond this.
  std::size_t max_pending = 1 << 16;
};

struct SerialReaderStatus {
  bool connected = false;
  std::uint64_t opens = 0;  ///< successful opens (1 + reconnects)
  std::uint64_t failed_opens = 0;
  int last_open_errno = 0;  ///< errno of the last failed open (0: none failed)
  std::uint64_t readings = 0;
  std::uint64_t dropped = 0;  ///< readings dropped because nobody drained them
  ProtocolStats protocol;
  std::uint64_t lost_records = 0;
  std::string last_error;
};

class SerialMeterReader {
 public:
  SerialMeterReader(std::unique_ptr<MeterProtocol> protocol, SerialReaderOptions options);
  ~SerialMeterReader();
  SerialMeterReader(const SerialMeterReader&) = delete;
  SerialMeterReader& operator=(const SerialMeterReader&) = delete;

  /// Starts the reader thread; opening happens there, so this returns at once.
  void start();
  /// Stops and joins the thread; idempotent.
  void stop();

  /// Moves the readings received so far into `out` (appending); returns how many.
  std::size_t drain(std::vector<MeterReading>& out);
  std::vector<MeterGap> gaps() const;
  SerialReaderStatus status() const;
  const MeterProtocol& protocol() const;

  /// Waits (at most until `timeout`) until at least `count` readings were received in total.
  bool wait_for_readings(std::uint64_t count, std::chrono::milliseconds timeout) const;
  /// Waits until the reader has opened the device `opens` times in total.
  bool wait_for_opens(std::uint64_t opens, std::chrono::milliseconds timeout) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace jetchar::jetson::meters
