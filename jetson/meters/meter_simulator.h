// A meter simulator: speaks one protocol over a real pseudo-terminal pair (openpty) and serves a
// known synthetic power trace, so readers can be tested end to end and users can try jetchar
// without hardware. The slave side is what a reader opens; with `link_path` the simulator keeps a
// stable symlink to it (like /dev/serial/by-id), removed on disconnect and recreated on
// reconnect — a new pty each time, as a USB adapter that was unplugged comes back.
//
// Behaviour per protocol:
//   wattsup  banner on connect; answers #V,R and #H,R; after #L,W,3,E,<r>,<s>; pushes one #d
//            record per interval with W = the trace's average over that interval.
//   wt300    SCPI: *IDN?, :NUM:NORM:NUM/ITEM<x>, :SAMP:RATE, :STAT:EESR?, :COMM:WAIT 1 (blocks
//            until the next update), :NUM:NORM:VAL? (values of the last completed update period).
//   um24c/um25c/um34c  answers each 0xF0 with a 130-byte frame of the instantaneous values.
//   ina      pushes "<seq>,<t_us>,<mV>,<mA>,<marker>" lines every interval.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "jetson/meters/synthetic_power_trace.h"

namespace jetchar::jetson::meters {

/// The supply a meter of `protocol` typically sits on, the voltage a simulated one reports when
/// none is given: mains for a Watts Up? (230 V), USB for the UM testers (5 V), a Jetson's barrel-jack
/// supply (19 V) for the others.
double typical_supply_mv(std::string_view protocol);

struct MeterSimulatorOptions {
  /// Overrides the interval the protocol would use (Watts Up? logging interval — the real meter
  /// cannot go below 1 s; INA line period; Yokogawa initial update rate). Zero: protocol default.
  std::chrono::nanoseconds interval{0};
  /// Stable symlink to the current slave device; empty = none.
  std::filesystem::path link_path;
  /// Write responses in small pieces with short pauses, to exercise frame reassembly.
  bool fragment = false;
};

class MeterSimulator {
 public:
  /// Throws std::invalid_argument for an unknown protocol; std::system_error when no pty can be made.
  MeterSimulator(std::string protocol, SyntheticPowerTrace trace, MeterSimulatorOptions options = {});
  ~MeterSimulator();
  MeterSimulator(const MeterSimulator&) = delete;
  MeterSimulator& operator=(const MeterSimulator&) = delete;

  void start();
  void stop();

  /// The device path a reader should open: the symlink when configured, else /dev/pts/N.
  std::string device_path() const;
  /// The current /dev/pts/N.
  std::string slave_path() const;
  /// CLOCK_MONOTONIC at which the trace's t = 0 was served.
  std::int64_t start_ns() const;
  const SyntheticPowerTrace& trace() const;

  /// Writes raw bytes to the reader (garbage, partial frames).
  void inject(std::string_view bytes);
  /// Closes the pty (the reader sees a hang-up) and removes the symlink.
  void disconnect();
  /// Opens a new pty and points the symlink at it.
  void reconnect();
  /// Level reported in the INA line protocol's marker field.
  void set_marker(bool level);
  /// Requests received from the reader so far (commands, poll bytes), for tests.
  std::uint64_t requests() const;

  /// One power value put on the wire: the CLOCK_MONOTONIC moment it stands for (the end of its
  /// averaging interval for Watts Up? and Yokogawa, the instant for UM and INA lines) and the
  /// trace's power then, before the protocol's rounding. Tests compare readers with this record
  /// instead of with wall-clock receive times, which follow the machine's scheduling.
  struct Served {
    std::int64_t time_ns = 0;
    double power_mw = 0;
  };
  /// Everything served so far, in the order it was written.
  std::vector<Served> served() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace jetchar::jetson::meters
