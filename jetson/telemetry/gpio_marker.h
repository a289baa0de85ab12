// GPIO phase markers: a GPIO line toggled at phase boundaries (run, epoch, minibatch window) so an
// external logger (an INA226 microcontroller, an Otii, a DAQ) sees the phases in its own trace.
// Every toggle is also recorded with its CLOCK_MONOTONIC time, which is what aligning the
// logger's marker edges with the onboard trace needs (energy::offset_from_marker_edges).
//
// Backends: libgpiod (v1 API, as Debian 12 and JetPack ship it) on /dev/gpiochipN, and a fake
// that only records, for tests and for boards without a wired line.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "jetson/energy/measurement_windows.h"
#include "sysfs/root.h"

namespace jetchar::jetson {

struct MarkerToggle {
  std::int64_t time_ns = 0;  ///< CLOCK_MONOTONIC right after the line was driven
  bool level = false;
  std::string label;  ///< "+epoch", "-run", ...
  bool ok = true;     ///< false when driving the line failed (the edge is missing)
};

class PhaseMarker {
 public:
  virtual ~PhaseMarker() = default;
  virtual std::string describe() const = 0;

  /// Flips the line and records the edge. Does not throw: a failed write is recorded as !ok.
  const MarkerToggle& toggle(std::string_view label);
  bool level() const { return level_; }
  const std::vector<MarkerToggle>& toggles() const { return toggles_; }
  /// Times of the edges that were driven, for alignment.
  std::vector<std::int64_t> edge_times_ns() const;

 protected:
  /// Drives the line; false on failure.
  virtual bool drive(bool level) = 0;

 private:
  bool level_ = false;
  std::vector<MarkerToggle> toggles_;
};

/// Records toggles only.
class FakePhaseMarker final : public PhaseMarker {
 public:
  std::string describe() const override { return "fake marker (records toggles only)"; }
  /// Makes the next drives fail, to test how callers cope.
  void set_failing(bool failing) { failing_ = failing; }

 protected:
  bool drive(bool) override { return !failing_; }

 private:
  bool failing_ = false;
};

/// A real line through libgpiod. Construction requests the line as an output driven low.
class GpiodPhaseMarker final : public PhaseMarker {
 public:
  /// `chip` is "gpiochip0" or "/dev/gpiochip0"; the device is found through `root`. Throws
  /// sysfs::IoError naming the device when it is absent or cannot be opened, and
  /// std::invalid_argument when the line does not exist on the chip.
  GpiodPhaseMarker(const sysfs::Root& root, std::string_view chip, unsigned line);
  ~GpiodPhaseMarker() override;
  std::string describe() const override;

 protected:
  bool drive(bool level) override;

 private:
  struct Handles;
  std::unique_ptr<Handles> handles_;
  std::string device_;
  unsigned line_;
};

/// True when /dev/<chip> exists under `root` (the real backend can be tried).
bool gpio_chip_present(const sysfs::Root& root, std::string_view chip);

/// An observer for energy::WindowRecorder that toggles `marker` at both edges of every window
/// whose kind is in `kinds`. The marker must outlive the recorder.
energy::WindowRecorder::Observer marker_observer(PhaseMarker& marker, std::set<energy::WindowKind> kinds);

}  // namespace jetchar::jetson
