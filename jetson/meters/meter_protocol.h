// One interface for every external meter protocol: what to send after opening the port, what to
// send periodically (polled meters), and how received bytes become readings. Protocols are pure
// state machines over bytes and timestamps; the serial transport lives in SerialMeterReader.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jetson/energy/energy_integrator.h"
#include "jetson/meters/meter_reading.h"

namespace jetchar::jetson::meters {

struct MeterOptions {
  /// Meter interval: Watts Up? logging interval (whole seconds on a real meter), Yokogawa update
  /// rate (0.1 .. 5 s), UM poll period, INA logger line period (for gap detection only).
  /// Zero = the protocol's default (1 s, 0.5 s, 100 ms, 10 ms).
  std::chrono::nanoseconds interval{0};
};

class MeterProtocol {
 public:
  virtual ~MeterProtocol() = default;

  virtual std::string_view name() const = 0;
  virtual unsigned baud_rate() const = 0;
  /// How often the meter should produce a reading; silence for a few of these is a gap.
  virtual std::chrono::nanoseconds expected_interval() const = 0;
  /// Whether readings are averages over the preceding interval (integrate with the rectangle).
  virtual bool reports_averages() const = 0;

  /// Bytes to send after the port was (re)opened; the protocol also resets its parser here.
  virtual std::string on_open(std::int64_t now_ns) = 0;
  /// Period of poll_request(); nullopt for meters that push on their own.
  virtual std::optional<std::chrono::nanoseconds> poll_interval() const { return std::nullopt; }
  virtual std::string poll_request(std::int64_t /*now_ns*/) { return {}; }
  /// Feeds received bytes; appends complete readings and, where the protocol answers, bytes to send.
  virtual void on_bytes(std::string_view bytes, std::int64_t now_ns, std::vector<MeterReading>& readings,
                        std::string& reply) = 0;

  virtual ProtocolStats stats() const = 0;

  /// How the readings integrate into energy: an average over the interval before each report
  /// holds for that interval (backward rectangles), an instantaneous value is interpolated (trapezoids).
  energy::Integration integration() const {
    return reports_averages() ? energy::Integration::kBackwardRectangle : energy::Integration::kTrapezoid;
  }
  /// Records the meter says were lost (INA line sequence jumps).
  virtual std::uint64_t lost_records() const { return 0; }
};

/// Names accepted by make_meter_protocol, for help texts and errors.
inline constexpr const char* kMeterProtocolNames[] = {"wattsup", "wt300", "um24c", "um25c", "um34c", "ina"};

/// Throws std::invalid_argument naming the valid protocols, or the valid intervals.
std::unique_ptr<MeterProtocol> make_meter_protocol(std::string_view name, const MeterOptions& options = {});

}  // namespace jetchar::jetson::meters
