#include "jetson/telemetry/gpio_marker.h"

#include <fmt/format.h>
#include <gpiod.h>

#include <cerrno>
#include <stdexcept>

#include "sysfs/error.h"
#include "sysfs/monotonic_clock.h"

namespace jetchar::jetson {
namespace {

using sysfs::monotonic_ns;

std::string device_path(std::string_view chip) {
  if (chip.rfind("/dev/", 0) == 0) return std::string(chip);
  return "/dev/" + std::string(chip);
}

}  // namespace

const MarkerToggle& PhaseMarker::toggle(std::string_view label) {
  const bool next = !level_;
  const bool ok = drive(next);
  if (ok) level_ = next;
  toggles_.push_back(MarkerToggle{monotonic_ns(), next, std::string(label), ok});
  return toggles_.back();
}

std::vector<std::int64_t> PhaseMarker::edge_times_ns() const {
  std::vector<std::int64_t> times;
  for (const auto& t : toggles_) {
    if (t.ok) times.push_back(t.time_ns);
  }
  return times;
}

struct GpiodPhaseMarker::Handles {
  gpiod_chip* chip = nullptr;
  gpiod_line* line = nullptr;
  ~Handles() {
    if (line != nullptr) gpiod_line_release(line);
    if (chip != nullptr) gpiod_chip_close(chip);
  }
};

bool gpio_chip_present(const sysfs::Root& root, std::string_view chip) { return root.exists(device_path(chip)); }

GpiodPhaseMarker::GpiodPhaseMarker(const sysfs::Root& root, std::string_view chip, unsigned line)
    : handles_(std::make_unique<Handles>()), device_(device_path(chip)), line_(line) {
  if (!root.exists(device_)) throw sysfs::IoError(device_, "open GPIO chip", ENOENT);
  const std::string resolved = root.resolve(device_).string();
  handles_->chip = gpiod_chip_open(resolved.c_str());
  if (handles_->chip == nullptr) throw sysfs::IoError(device_, "open GPIO chip", errno);
  const unsigned lines = gpiod_chip_num_lines(handles_->chip);
  if (line >= lines) {
    throw std::invalid_argument(
        fmt::format("GPIO line {} does not exist on {}; valid: 0..{}", line, device_, lines == 0 ? 0 : lines - 1));
  }
  handles_->line = gpiod_chip_get_line(handles_->chip, line);
  if (handles_->line == nullptr) throw sysfs::IoError(device_, fmt::format("get line {}", line), errno);
  if (gpiod_line_request_output(handles_->line, "jetchar-phase-marker", 0) != 0) {
    const int error = errno;
    handles_->line = nullptr;  // not requested: nothing to release
    throw sysfs::IoError(device_, fmt::format("request line {} as output (in use by another consumer?)", line), error);
  }
}

GpiodPhaseMarker::~GpiodPhaseMarker() = default;

std::string GpiodPhaseMarker::describe() const { return fmt::format("{} line {}", device_, line_); }

bool GpiodPhaseMarker::drive(bool level) { return gpiod_line_set_value(handles_->line, level ? 1 : 0) == 0; }

energy::WindowRecorder::Observer marker_observer(PhaseMarker& marker, std::set<energy::WindowKind> kinds) {
  return [&marker, kinds = std::move(kinds)](const energy::WindowEvent& event) {
    if (!kinds.contains(event.window.kind)) return;
    marker.toggle((event.edge == energy::WindowEvent::Edge::kBegin ? "+" : "-") + event.window.name);
  };
}

}  // namespace jetchar::jetson
