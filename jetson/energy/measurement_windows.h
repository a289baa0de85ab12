// Named measurement windows over the monotonic clock: begin/end pairs that may nest (an epoch
// inside a run, a minibatch window inside an epoch) or overlap. Names are unique among the
// windows open at a time; a closed name can be opened again (epoch 0, epoch 1, ... may reuse
// "epoch"). Observers see every boundary, which is where GPIO phase markers toggle.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jetchar::jetson::energy {

/// What a window stands for; markers may encode it.
enum class WindowKind { kRun, kEpoch, kMinibatchWindow, kBaseload, kOther };

struct Window {
  std::string name;
  WindowKind kind = WindowKind::kOther;
  std::int64_t begin_ns = 0;
  std::optional<std::int64_t> end_ns;  ///< nullopt while open
  /// Index of the innermost window open when this one began.
  std::optional<std::size_t> parent;
  int depth = 0;
  /// Work done inside the window, for J per minibatch / per sample.
  std::optional<std::uint64_t> minibatches;
  std::optional<std::uint64_t> samples;

  std::optional<std::int64_t> duration_ns() const {
    return end_ns ? std::optional<std::int64_t>(*end_ns - begin_ns) : std::nullopt;
  }
};

struct WindowEvent {
  enum class Edge { kBegin, kEnd } edge;
  const Window& window;
  std::size_t index;
};

class WindowRecorder {
 public:
  using Observer = std::function<void(const WindowEvent&)>;

  /// Monotonic now (CLOCK_MONOTONIC), the clock every sample timestamp uses.
  static std::int64_t now_ns();

  void add_observer(Observer observer) { observers_.push_back(std::move(observer)); }

  /// Opens a window at `time_ns` (default: now). Throws std::invalid_argument when a window of
  /// that name is already open or the time is before the latest boundary recorded.
  std::size_t begin(std::string name, WindowKind kind = WindowKind::kOther,
                    std::optional<std::int64_t> time_ns = std::nullopt);
  /// Closes the open window `name`; throws std::invalid_argument when none is open.
  const Window& end(std::string_view name, std::optional<std::int64_t> time_ns = std::nullopt,
                    std::optional<std::uint64_t> minibatches = std::nullopt,
                    std::optional<std::uint64_t> samples = std::nullopt);

  const std::vector<Window>& windows() const { return windows_; }
  /// Closed windows called `name`, in order of their begin.
  std::vector<const Window*> closed(std::string_view name) const;
  bool is_open(std::string_view name) const { return open_index(name).has_value(); }

 private:
  std::optional<std::size_t> open_index(std::string_view name) const;
  void check_time(std::int64_t time_ns, std::string_view name) const;
  void notify(WindowEvent::Edge edge, std::size_t index);

  std::vector<Window> windows_;
  std::vector<std::size_t> open_;  // indexes, in order of begin
  std::int64_t last_boundary_ns_ = INT64_MIN;
  std::vector<Observer> observers_;
};

}  // namespace jetchar::jetson::energy
