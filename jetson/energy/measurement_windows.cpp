#include "jetson/energy/measurement_windows.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "sysfs/monotonic_clock.h"

namespace jetchar::jetson::energy {

std::int64_t WindowRecorder::now_ns() { return sysfs::monotonic_ns(); }

std::optional<std::size_t> WindowRecorder::open_index(std::string_view name) const {
  for (std::size_t index : open_) {
    if (windows_[index].name == name) return index;
  }
  return std::nullopt;
}

void WindowRecorder::check_time(std::int64_t time_ns, std::string_view name) const {
  if (time_ns < last_boundary_ns_) {
    throw std::invalid_argument(fmt::format(
        "window '{}': boundary at {} ns is earlier than the previous boundary at {} ns; use the monotonic clock", name,
        time_ns, last_boundary_ns_));
  }
}

void WindowRecorder::notify(WindowEvent::Edge edge, std::size_t index) {
  for (const auto& observer : observers_) observer(WindowEvent{edge, windows_[index], index});
}

std::size_t WindowRecorder::begin(std::string name, WindowKind kind, std::optional<std::int64_t> time_ns) {
  if (name.empty()) throw std::invalid_argument("window name is empty; give every window a name");
  if (open_index(name)) {
    throw std::invalid_argument(
        fmt::format("window '{}' is already open; end it first or use a different name for the nested one", name));
  }
  const std::int64_t t = time_ns.value_or(now_ns());
  check_time(t, name);
  Window window;
  window.name = std::move(name);
  window.kind = kind;
  window.begin_ns = t;
  if (!open_.empty()) {
    window.parent = open_.back();
    window.depth = windows_[open_.back()].depth + 1;
  }
  windows_.push_back(std::move(window));
  open_.push_back(windows_.size() - 1);
  last_boundary_ns_ = t;
  notify(WindowEvent::Edge::kBegin, windows_.size() - 1);
  return windows_.size() - 1;
}

const Window& WindowRecorder::end(std::string_view name, std::optional<std::int64_t> time_ns,
                                  std::optional<std::uint64_t> minibatches, std::optional<std::uint64_t> samples) {
  const auto index = open_index(name);
  if (!index) {
    std::string open_names;
    for (std::size_t i : open_) open_names += (open_names.empty() ? "" : ", ") + windows_[i].name;
    throw std::invalid_argument(
        fmt::format("window '{}' is not open; open windows: {}", name, open_names.empty() ? "none" : open_names));
  }
  const std::int64_t t = time_ns.value_or(now_ns());
  check_time(t, name);
  Window& window = windows_[*index];
  window.end_ns = t;
  window.minibatches = minibatches;
  window.samples = samples;
  open_.erase(std::find(open_.begin(), open_.end(), *index));
  last_boundary_ns_ = t;
  notify(WindowEvent::Edge::kEnd, *index);
  return window;
}

std::vector<const Window*> WindowRecorder::closed(std::string_view name) const {
  std::vector<const Window*> result;
  for (const auto& window : windows_) {
    if (window.name == name && window.end_ns) result.push_back(&window);
  }
  return result;
}

}  // namespace jetchar::jetson::energy
