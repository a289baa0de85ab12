#include "experiments/training/memory_monitor.h"

#include <algorithm>

#include "sysfs/attribute.h"
#include "sysfs/proc_meminfo.h"

#ifdef JETCHAR_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace jetchar::experiments {

namespace {

// "VmRSS:\t  123456 kB" in /proc/self/status; nullopt when absent or unreadable (the run
// goes on without the figure rather than fail).
std::optional<std::uint64_t> status_kib(const sysfs::Root& root, std::string_view key) {
  auto text = sysfs::try_read_string(root, "/proc/self/status");
  if (!text) return std::nullopt;
  std::string_view rest = *text;
  while (!rest.empty()) {
    const auto end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
    if (line.size() <= key.size() || !line.starts_with(key) || line[key.size()] != ':') continue;
    std::uint64_t value = 0;
    bool digits = false;
    for (char c : line.substr(key.size() + 1)) {
      if (c >= '0' && c <= '9') {
        value = value * 10 + static_cast<std::uint64_t>(c - '0');
        digits = true;
      } else if (digits) {
        break;
      }
    }
    return digits ? std::optional<std::uint64_t>(value) : std::nullopt;
  }
  return std::nullopt;
}

template <typename T>
void keep_max(std::optional<T>& slot, std::optional<T> value) {
  if (value && (!slot || *value > *slot)) slot = value;
}

template <typename T>
void keep_min(std::optional<T>& slot, std::optional<T> value) {
  if (value && (!slot || *value < *slot)) slot = value;
}

}  // namespace

nlohmann::json to_json(const MemoryPeaks& peaks) {
  auto optional = [](const std::optional<std::uint64_t>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
  };
  return {{"peak_rss_kib", optional(peaks.peak_rss_kib)},
          {"process_peak_rss_kib", optional(peaks.process_peak_rss_kib)},
          {"min_mem_available_kib", optional(peaks.min_mem_available_kib)},
          {"mem_total_kib", optional(peaks.mem_total_kib)},
          {"cuda_peak_allocated_bytes", optional(peaks.cuda_peak_allocated_bytes)},
          {"cuda_peak_reserved_bytes", optional(peaks.cuda_peak_reserved_bytes)},
          {"samples", peaks.samples}};
}

MemoryMonitor::MemoryMonitor(const sysfs::Root& root, torch::Device device, std::chrono::milliseconds period)
    : root_(root), device_(device), period_(period) {
#ifdef JETCHAR_WITH_CUDA
  if (device_.is_cuda()) {
    c10::cuda::CUDACachingAllocator::resetPeakStats(device_.has_index() ? device_.index() : 0);
  }
#endif
  sample();
  thread_ = std::thread([this] { run(); });
}

MemoryMonitor::~MemoryMonitor() { stop(); }

void MemoryMonitor::sample() {
  auto rss = status_kib(root_, "VmRSS");
  std::optional<std::uint64_t> available, total;
  try {
    auto meminfo = sysfs::read_proc_meminfo(root_);
    available = meminfo.mem_available_kb;
    total = meminfo.mem_total_kb;
  } catch (const std::exception&) {
    // No /proc/meminfo under this root: the figure stays absent.
  }
  std::lock_guard lock(mutex_);
  keep_max(peaks_.peak_rss_kib, rss);
  keep_min(peaks_.min_mem_available_kib, available);
  if (total) peaks_.mem_total_kib = total;
  ++peaks_.samples;
}

void MemoryMonitor::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, period_, [this] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    sample();
    lock.lock();
  }
}

MemoryPeaks MemoryMonitor::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return peaks_;
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  sample();
  std::lock_guard lock(mutex_);
  stopped_ = true;
  peaks_.process_peak_rss_kib = status_kib(root_, "VmHWM");
#ifdef JETCHAR_WITH_CUDA
  if (device_.is_cuda()) {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device_.has_index() ? device_.index() : 0);
    const auto aggregate = static_cast<std::size_t>(c10::cuda::CUDACachingAllocator::StatType::AGGREGATE);
    peaks_.cuda_peak_allocated_bytes = static_cast<std::uint64_t>(stats.allocated_bytes[aggregate].peak);
    peaks_.cuda_peak_reserved_bytes = static_cast<std::uint64_t>(stats.reserved_bytes[aggregate].peak);
  }
#endif
  return peaks_;
}

}  // namespace jetchar::experiments
