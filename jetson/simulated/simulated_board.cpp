#include "jetson/simulated/simulated_board.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "jetson/discovery/cpu_topology.h"
#include "jetson/discovery/emc_clock.h"
#include "jetson/discovery/gpu_device.h"
#include "jetson/discovery/power_monitors.h"
#include "jetson/discovery/thermal.h"
#include "jetson/simulated/board_fixture.h"
#include "jetson/simulated/simulated_proc_stat.h"
#include "sysfs/attribute.h"
#include "sysfs/cpu_list.h"
#include "sysfs/injected_errors.h"
#include "sysfs/monotonic_clock.h"
#include "sysfs/unique_fd.h"

namespace fs = std::filesystem;

namespace jetchar::jetson {
namespace {

constexpr const char* kCpuDir = "/sys/devices/system/cpu";
constexpr double kBaselineUtilization = 0.1;
// 10 ticks per CPU: 100 ms at USER_HZ = 100.
constexpr std::uint64_t kUtilizationWindowTicks = 10;

std::optional<std::int64_t> read_int(const sysfs::Root& root, const std::string& path) {
  return sysfs::try_read_int(root, path);
}

// Writes a derived attribute the way the kernel prints it (value and newline), only when it
// changes, so that an unchanged tree stays byte-identical.
void put(const sysfs::Root& root, const std::string& path, const std::string& value) {
  if (!root.exists(path)) return;
  if (sysfs::try_read_string(root, path) == value) return;
  // Replaced whole (temporary file + rename): a process killed mid-update must not leave an empty
  // attribute behind, which a kernel never shows.
  const fs::path target = root.resolve(root.canonical(path));
  const fs::path temporary = target.parent_path() / (target.filename().string() + ".jetchar-sim-tmp");
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << value << "\n";
    if (!out) throw std::runtime_error("simulated board: cannot write " + temporary.string());
  }
  // The attribute keeps its mode (a kernel's 0400 cpuinfo_cur_freq stays 0400).
  std::error_code ec;
  fs::permissions(temporary, fs::status(target, ec).permissions(), ec);
  fs::rename(temporary, target);
}

// A sensor attribute rewritten in place. sysfs regenerates an attribute on every read, so a
// reader that keeps the file open and re-reads it (the telemetry sampler's pread) sees new values;
// a file replaced by rename would leave such a reader on the old inode forever. The new text goes
// out in one pwrite, padded with spaces when shorter than the old text (every parser here skips
// trailing whitespace, like the kernel's newline), and only then is the file cut to length: a
// reader, or a process killed in between, never sees an empty or truncated number.
class InPlaceFile {
 public:
  explicit InPlaceFile(const fs::path& file) : fd_(::open(file.c_str(), O_WRONLY | O_CLOEXEC)) {
    if (!fd_) throw std::runtime_error("simulated board: cannot open " + file.string() + " for writing");
    struct stat st {};
    if (::fstat(fd_.get(), &st) == 0) size_ = static_cast<std::size_t>(st.st_size);
  }
  InPlaceFile(InPlaceFile&& other) noexcept = default;
  InPlaceFile& operator=(InPlaceFile&&) = delete;
  /// `text` includes the trailing newline.
  void write(std::string text) {
    const std::size_t length = text.size();
    if (length < size_) text.append(size_ - length, ' ');
    if (::pwrite(fd_.get(), text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) return;
    if (length < text.size() && ::ftruncate(fd_.get(), static_cast<off_t>(length)) != 0) {
      size_ = text.size();
      return;
    }
    size_ = length;
  }

 private:
  sysfs::UniqueFd fd_;
  std::size_t size_ = 0;
};

void put_sensor(const sysfs::Root& root, const std::string& path, const std::string& value) {
  if (!root.exists(path)) return;
  if (sysfs::try_read_string(root, path) == value) return;
  InPlaceFile(root.resolve(root.canonical(path))).write(value + "\n");
}

// The CPU state that the processes simulating one board directory share (simulated_board.h),
// read and written under an exclusive flock held while this lives: each interval of CPU time is
// counted by one process at one load. A torn or foreign file (a process killed mid-write) reads
// as empty, and the counters start again from /proc/stat as it stands, so they never go back.
class SharedCpuState {
 public:
  explicit SharedCpuState(const fs::path& file) : fd_(::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (!fd_) throw std::runtime_error("simulated board: cannot open " + file.string());
    while (::flock(fd_.get(), LOCK_EX) != 0) {
      if (errno != EINTR) throw std::runtime_error("simulated board: cannot lock " + file.string());
    }
    std::string text;
    char buffer[4096];
    for (off_t offset = 0;;) {
      const ssize_t n = ::pread(fd_.get(), buffer, sizeof buffer, offset);
      if (n <= 0) break;
      text.append(buffer, static_cast<std::size_t>(n));
      offset += n;
    }
    json_ = nlohmann::json::parse(text, nullptr, false);
    if (!json_.is_object()) json_ = nlohmann::json::object();
  }

  nlohmann::json& json() { return json_; }

  // Closing the descriptor (the destructor) releases the lock.
  void save() {
    const std::string text = json_.dump();
    if (::pwrite(fd_.get(), text.data(), text.size(), 0) == static_cast<ssize_t>(text.size())) {
      (void)::ftruncate(fd_.get(), static_cast<off_t>(text.size()));
    }
  }

 private:
  sysfs::UniqueFd fd_;
  nlohmann::json json_;
};

// A process that pinned the CPU load and still runs (kill with signal 0 asks only whether it exists).
bool process_alive(std::int64_t pid) { return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM); }

// cpufreq_show_cpus(): the CPU numbers separated by single spaces ("4 5 6 7"; "" for none).
std::string format_cpufreq_cpus(const std::vector<int>& cpus) {
  std::string text;
  for (const int cpu : cpus) text += (text.empty() ? "" : " ") + std::to_string(cpu);
  return text;
}

// Major and minor of a kernel release ("4.9.337-tegra" -> {4, 9}); {0, 0} when unknown.
std::pair<int, int> kernel_version(const std::string& release) {
  int major = 0;
  int minor = 0;
  if (std::sscanf(release.c_str(), "%d.%d", &major, &minor) != 2) return {0, 0};
  return {major, minor};
}

// What reads and writes of an inactive policy's files fail with on this kernel line
// (docs/kernel-formats.md, cpufreq rows): Linux >= 5.19 refuses every file with EBUSY (cpufreq.c
// show()/store()); Linux 4.9 runs the driver's exit() when the last CPU goes offline and drops
// the frequency table, so show_available_freqs() answers ENODEV.
sysfs::InjectedErrorTable inactive_policy_errors(const sysfs::Root& root, const std::string& policy,
                                                 std::pair<int, int> kernel) {
  sysfs::InjectedErrorTable errors;
  const std::string dir = root.canonical(policy);
  if (kernel >= std::pair{5, 19}) {
    for (const auto& name : root.list(dir)) {
      if (root.is_directory(dir + "/" + name)) continue;
      errors[{sysfs::Access::kRead, dir + "/" + name}] = EBUSY;
      errors[{sysfs::Access::kWrite, dir + "/" + name}] = EBUSY;
    }
  } else if (kernel.first == 4) {
    errors[{sysfs::Access::kRead, dir + "/scaling_available_frequencies"}] = ENODEV;
  }
  return errors;
}

std::int64_t clamp(std::int64_t v, std::int64_t lo, std::int64_t hi) { return std::max(lo, std::min(v, hi)); }

struct ClusterState {
  std::vector<int> online_cpus;
  double freq_ghz = 0;
};

// The EMC attributes a behaviour model needs, per interface (the same table jetson_clocks uses).
struct EmcFiles {
  std::string rate;
  std::optional<std::string> set_rate;
  std::optional<std::string> lock;
  std::optional<std::string> min_rate;
  std::optional<std::string> max_rate;
};

std::optional<EmcFiles> emc_files(const sysfs::Root& root) {
  if (root.exists("/sys/kernel/debug/bpmp/debug/clk/emc/rate")) {
    const std::string d = "/sys/kernel/debug/bpmp/debug/clk/emc/";
    return EmcFiles{d + "rate", d + "rate", d + "mrq_rate_locked", d + "min_rate", d + "max_rate"};
  }
  if (root.exists("/sys/kernel/debug/clk/override.emc/clk_rate")) {
    const std::string d = "/sys/kernel/debug/clk/override.emc/";
    return EmcFiles{d + "clk_rate", d + "clk_update_rate", d + "clk_state",
                    "/sys/kernel/debug/tegra_bwmgr/emc_min_rate", "/sys/kernel/debug/tegra_bwmgr/emc_max_rate"};
  }
  if (root.exists("/sys/kernel/debug/clk/emc/clk_rate")) {  // CCF clock: read-only here, follows the cap
    const std::string d = "/sys/kernel/debug/clk/emc/";
    return EmcFiles{d + "clk_rate", std::nullopt, std::nullopt, d + "clk_min_rate", d + "clk_max_rate"};
  }
  if (root.exists("/sys/class/devfreq/bwmgr/cur_freq")) {  // devfreq (AGX Thor): follows its min/max and the cap
    const std::string d = "/sys/class/devfreq/bwmgr/";
    return EmcFiles{d + "cur_freq", std::nullopt, std::nullopt, d + "min_freq", d + "max_freq"};
  }
  return std::nullopt;
}

std::optional<std::string> emc_cap_path(const sysfs::Root& root) {
  for (const char* cap : {"/sys/kernel/nvpmodel_clk_cap/emc", "/sys/kernel/nvpmodel_emc_cap/emc_iso_cap"}) {
    if (root.exists(cap)) return std::string(cap);
  }
  return std::nullopt;
}

std::vector<int> online_cpus(const sysfs::Root& root) {
  std::vector<int> online;
  for (const auto& dir : root.glob(std::string(kCpuDir) + "/cpu[0-9]*")) {
    const int cpu = std::atoi(dir.c_str() + dir.find_last_of('u') + 1);
    const auto state = sysfs::try_read_string(root, dir + "/online");
    if (cpu == 0 || !state || *state == "1") online.push_back(cpu);
  }
  std::sort(online.begin(), online.end());
  return online;
}

// What a rail's power file shows for mv and ma, in the driver's unit: the iio INA3221's integer
// mW (mV × mA / 1000) or the INA238's µW (mV × mA).
std::string power_file_text(const PowerRail& rail, std::int64_t mv, std::int64_t ma) {
  return std::to_string(rail.power_mw_per_unit < 1.0 ? mv * ma : mv * ma / 1000);
}

// Rail power (mW) by power monitor label; nullopt keeps the captured value.
std::optional<double> rail_power_mw(const std::string& label, const SimulatedPower& p) {
  const double module = p.cpu_mw + p.gpu_mw + p.emc_mw + p.soc_mw;
  if (label == "VDD_IN" || label == "POM_5V_IN" || label == "VIN") return module / 0.9;
  if (label == "VDD_CPU_SOC_MSS") return p.cpu_mw + p.soc_mw + p.emc_mw;
  if (label == "VDD_CPU_GPU_CV") return p.cpu_mw + p.gpu_mw;
  if (label == "VDD_SOC") return p.soc_mw + p.emc_mw;
  if (label == "VDD_GPU_SOC") return p.gpu_mw + p.soc_mw;
  if (label == "VDD_CPU_CV" || label == "CPU" || label == "POM_5V_CPU" || label == "VDD_SYS_CPU") return p.cpu_mw;
  if (label == "GPU" || label == "POM_5V_GPU" || label == "VDD_SYS_GPU" || label == "VDD_GPU") return p.gpu_mw;
  if (label == "SOC" || label == "VDD_SYS_SOC") return p.soc_mw + p.emc_mw / 2;
  if (label == "VDDRQ" || label == "VDDQ_VDD2_1V8AO" || label == "VDD_SYS_DDR") return p.emc_mw / 2;
  if (label == "CV") return 0.0;
  return std::nullopt;
}

}  // namespace

bool SimulatedBoard::is_simulated_root(const fs::path& dir) { return fs::exists(dir / kMarker); }

SimulatedBoard::SimulatedBoard(std::string_view fixture, std::optional<fs::path> dir) {
  if (!dir) {
    scratch_ = OwnedTempDir("jetchar-sim");
    root_dir_ = scratch_.path();
  } else {
    root_dir_ = fs::absolute(*dir);
  }
  if (is_simulated_root(root_dir_)) {
    std::ifstream in(root_dir_ / kMarker);
    const auto marker = nlohmann::json::parse(in);
    fixture_ = marker.at("fixture").get<std::string>();
    baseline_json_ = marker.at("baseline").dump();
    baseline_power_mw_ = marker.at("baseline_power_mw").get<double>();
    fixture_errors_ = sysfs::parse_injected_errors(marker.value("fixture_injected_errors", ""), kMarker);
    if (!fixture.empty() && fixture != fixture_ && fs::path(fixture).filename() != fixture_ &&
        fs::path(fixture).stem() != fixture_) {
      throw std::invalid_argument(
          fmt::format("{} holds a simulated '{}' board, not '{}'", root_dir_.string(), fixture_, fixture));
    }
    open_roots();
    // A kernel derives its current clocks as the limits are written; here the writer does, and
    // one killed between its last write and its update left them stale. Derive them again.
    update_clocks();
    return;
  }
  if (fs::exists(root_dir_) && !fs::is_empty(root_dir_)) {
    throw std::invalid_argument(
        fmt::format("{} is not empty and holds no simulated board; give an empty or new "
                    "directory for --root with --board sim:{}",
                    root_dir_.string(), fixture));
  }
  fs::create_directories(root_dir_);
  const fs::path manifest = find_board_fixture(fixture);
  FixtureManifest::load(manifest).expand(root_dir_);
  fixture_ = board_fixture_name(manifest);
  if (const auto errors = sysfs::try_read_string(sysfs::Root(root_dir_).without_injected_errors(),
                                                 std::string("/") + sysfs::InjectedErrors::kFileName)) {
    fixture_errors_ = sysfs::parse_injected_errors(*errors + "\n", sysfs::InjectedErrors::kFileName);
    // The fixture's failing policy files say which clusters were inactive when it was captured;
    // from here on the model decides that (inject_inactive_policy_errors), so a cluster brought
    // back online reads again.
    std::erase_if(fixture_errors_, [](const auto& entry) {
      return entry.first.second.rfind("/sys/devices/system/cpu/cpufreq/policy", 0) == 0;
    });
  }
  open_roots();

  // Capture the derived attributes: the model moves them relative to these.
  nlohmann::json captured = nlohmann::json::object();
  auto capture = [&](const std::string& path) {
    if (const auto value = sysfs::try_read_string(*model_root_, path)) captured[path] = *value;
  };
  for (const auto& policy : model_root_->glob(std::string(kCpuDir) + "/cpufreq/policy*")) {
    capture(policy + "/scaling_cur_freq");
    capture(policy + "/cpuinfo_cur_freq");
  }
  if (const auto gpu = discover_gpu(*model_root_).gpu) {
    capture(gpu->devfreq_path + "/cur_freq");
    capture(gpu->devfreq_path + "/target_freq");
  }
  if (const auto emc = emc_files(*model_root_)) capture(emc->rate);
  for (const auto& device : discover_power_monitors(*model_root_).devices) {
    for (const auto& rail : device.rails) {
      capture(rail.voltage_path);
      capture(rail.current_path);
      if (rail.power_path) capture(*rail.power_path);
    }
  }
  for (const auto& zone : model_root_->glob("/sys/devices/virtual/thermal/thermal_zone*/temp")) capture(zone);
  for (const auto& zone : model_root_->glob("/sys/class/thermal/thermal_zone*/temp")) {
    capture(model_root_->canonical(zone));
  }
  baseline_json_ = captured.dump();
  host_utilization_ = kBaselineUtilization;
  baseline_power_mw_ = compute_power().total_mw;
  nlohmann::json marker{{"fixture", fixture_},
                        {"simulated", true},
                        {"note", "simulated board: every clock, rail and temperature here is modelled"},
                        {"baseline", captured},
                        {"baseline_power_mw", baseline_power_mw_},
                        {"fixture_injected_errors", sysfs::format_injected_errors(fixture_errors_)}};
  std::ofstream(root_dir_ / kMarker) << marker.dump(1) << "\n";
  last_host_stat_.reset();
  host_utilization_ = 0;
  update();
}

SimulatedBoard::~SimulatedBoard() {
  stop_power_trace();
  stop_refresh();
}

std::optional<std::string> SimulatedBoard::baseline(const std::string& path) const {
  const auto captured = nlohmann::json::parse(baseline_json_);
  const auto it = captured.find(path);
  if (it == captured.end()) return std::nullopt;
  return it->get<std::string>();
}

void SimulatedBoard::open_roots() {
  root_ = std::make_unique<sysfs::Root>(root_dir_);
  model_root_ = std::make_unique<sysfs::Root>(root_->without_injected_errors());
  kernel_release_ = sysfs::try_read_string(*model_root_, "/proc/sys/kernel/osrelease").value_or("");
}

void SimulatedBoard::inject_inactive_policy_errors(const std::vector<std::string>& inactive_policies) {
  sysfs::InjectedErrorTable errors = fixture_errors_;
  for (const auto& policy : inactive_policies) {
    errors.merge(inactive_policy_errors(*model_root_, policy, kernel_version(kernel_release_)));
  }
  const fs::path file = root_dir_ / sysfs::InjectedErrors::kFileName;
  const std::string text = sysfs::format_injected_errors(errors);
  std::error_code ec;
  if (text.empty()) {
    fs::remove(file, ec);
    return;
  }
  if (const auto current = sysfs::try_read_string(*model_root_, std::string("/") + sysfs::InjectedErrors::kFileName);
      current && *current + "\n" == text) {
    return;
  }
  // Replaced whole, so that readers never parse half a table.
  const fs::path temporary = root_dir_ / (std::string(sysfs::InjectedErrors::kFileName) + ".tmp");
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw std::runtime_error("simulated board: cannot write " + temporary.string());
  }
  fs::rename(temporary, file);
}

void SimulatedBoard::update() {
  std::lock_guard lock(mutex_);
  update_clocks();
  last_power_ = compute_power();
  write_sensors(last_power_);
}

void SimulatedBoard::update_sensors() {
  std::lock_guard lock(mutex_);
  // CPU time passes only while sensors are refreshed (a measurement, a monitor, a run's pin):
  // reading a board or writing its controls leaves /proc/stat as it stands.
  share_cpu_state([this] { last_power_ = compute_power(); });
  write_sensors(last_power_);
}

void SimulatedBoard::pin_host_utilization(std::optional<double> utilization) {
  std::lock_guard lock(mutex_);
  // The time until now passed at the load before the pin (or before its end).
  share_cpu_state([this, utilization] {
    pinned_utilization_ = utilization ? std::optional<double>(std::clamp(*utilization, 0.0, 1.0)) : std::nullopt;
  });
}

void SimulatedBoard::share_cpu_state(const std::function<void()>& at_now) {
  std::optional<SharedCpuState> state;
  try {
    state.emplace(root_dir_ / kCpuStateFile);
  } catch (const std::exception&) {
    at_now();  // a directory this process cannot write: the model runs on its own figures
    return;
  }
  nlohmann::json& json = state->json();
  shared_utilization_.reset();
  if (const auto pin = json.find("pin"); pin != json.end()) {
    const std::int64_t pid = pin->value("pid", std::int64_t{0});
    if (pid != ::getpid() && process_alive(pid)) {
      shared_utilization_ = std::clamp(pin->value("utilization", 0.0), 0.0, 1.0);
    } else {
      json.erase(pin);  // this process's own (set again below while it holds), or a gone process's
    }
  }
  // The interval since the last advance, by any process, passed at the load that held in it.
  const double interval_u = pinned_utilization_   ? *pinned_utilization_
                            : shared_utilization_ ? *shared_utilization_
                                                  : host_utilization_;
  if (const auto current = sysfs::try_read_string(*model_root_, "/proc/stat")) {
    const std::int64_t now_ns = sysfs::monotonic_ns();
    const std::vector<int> online = online_cpus(*model_root_);
    SimulatedCpuTimes times;
    try {
      times = json.contains("times") ? cpu_times_from_json(json["times"]) : cpu_times_from_text(*current);
    } catch (const std::exception&) {
      times = cpu_times_from_text(*current);
    }
    // The monotonic clock restarts at boot: a directory kept across a reboot counts on from here.
    if (const std::int64_t last_ns = json.value("last_ns", std::int64_t{0}); last_ns > 0 && now_ns > last_ns) {
      advance_cpu_times(times, online, static_cast<double>(now_ns - last_ns) / 1e9, interval_u);
    }
    json["last_ns"] = now_ns;
    json["times"] = to_json(times);
    std::string text = format_proc_stat(times, online, *current);
    text.pop_back();  // put_sensor adds the newline
    put_sensor(*model_root_, "/proc/stat", text);
  }
  at_now();
  if (pinned_utilization_) {
    json["pin"] = {{"utilization", *pinned_utilization_}, {"pid", static_cast<std::int64_t>(::getpid())}};
  }
  state->save();
}

void SimulatedBoard::pin_gpu_load(std::optional<double> load) {
  std::lock_guard lock(mutex_);
  const auto gpu = discover_gpu(*model_root_).gpu;
  const std::optional<std::string> load_path = gpu ? gpu->load_path : std::nullopt;
  // The file's own text comes back when the pin goes.
  if (load && !pinned_gpu_load_ && load_path) gpu_load_before_pin_ = sysfs::try_read_string(*model_root_, *load_path);
  if (!load && pinned_gpu_load_ && load_path && gpu_load_before_pin_)
    put_sensor(*model_root_, *load_path, *gpu_load_before_pin_);
  pinned_gpu_load_ = load ? std::optional<double>(std::clamp(*load, 0.0, 1.0)) : std::nullopt;
}

SimulatedPower SimulatedBoard::power() const {
  std::lock_guard lock(mutex_);
  return last_power_;
}

void SimulatedBoard::update_clocks() {
  const sysfs::Root& root = *model_root_;
  const std::vector<int> online = online_cpus(root);
  put(root, std::string(kCpuDir) + "/online", sysfs::format_cpu_list(online));

  std::vector<std::string> inactive;
  for (const auto& policy : root.glob(std::string(kCpuDir) + "/cpufreq/policy*")) {
    const auto related = sysfs::try_read_string(root, policy + "/related_cpus");
    if (!related) continue;
    std::vector<int> affected;
    for (const int cpu : sysfs::parse_cpu_list(*related, policy + "/related_cpus")) {
      if (std::binary_search(online.begin(), online.end(), cpu)) affected.push_back(cpu);
    }
    // An inactive policy (no online core) keeps the same limits; its clock draws no power.
    put(root, policy + "/affected_cpus", format_cpufreq_cpus(affected));
    if (affected.empty()) inactive.push_back(policy);
    const auto min = read_int(root, policy + "/scaling_min_freq");
    const auto max = read_int(root, policy + "/scaling_max_freq");
    if (!min || !max) continue;
    const std::string governor = sysfs::try_read_string(root, policy + "/scaling_governor").value_or("");
    const auto captured = baseline(policy + "/scaling_cur_freq");
    std::int64_t cur = captured ? sysfs::parse_int(*captured, policy) : *max;
    if (governor == "performance") cur = *max;
    if (governor == "powersave") cur = *min;
    cur = clamp(cur, *min, std::max(*min, *max));
    put(root, policy + "/scaling_cur_freq", std::to_string(cur));
    put(root, policy + "/cpuinfo_cur_freq", std::to_string(cur));
  }

  inject_inactive_policy_errors(inactive);

  if (const auto gpu = discover_gpu(root).gpu) {
    const std::string d = gpu->devfreq_path;
    const auto min = read_int(root, d + "/min_freq");
    const auto max = read_int(root, d + "/max_freq");
    if (min && max) {
      const std::string governor = sysfs::try_read_string(root, d + "/governor").value_or("");
      const auto captured = baseline(d + "/cur_freq");
      std::int64_t cur = captured ? sysfs::parse_int(*captured, d) : *min;
      if (governor == "performance") cur = *max;
      if (governor == "powersave") cur = *min;
      cur = clamp(cur, *min, std::max(*min, *max));
      put(root, d + "/cur_freq", std::to_string(cur));
      put(root, d + "/target_freq", std::to_string(cur));
    }
  }

  if (const auto emc = emc_files(root)) {
    const auto cap_path = emc_cap_path(root);
    const auto cap = cap_path ? read_int(root, *cap_path) : std::nullopt;
    const auto max = emc->max_rate ? read_int(root, *emc->max_rate) : std::nullopt;
    const auto min = emc->min_rate ? read_int(root, *emc->min_rate) : std::nullopt;
    std::int64_t top = max.value_or(std::numeric_limits<std::int64_t>::max());
    if (cap && *cap > 0) top = std::min(top, *cap);
    const bool locked = emc->lock && sysfs::try_read_string(root, *emc->lock) == "1";
    std::int64_t rate = 0;
    if (locked && emc->set_rate) {
      rate = read_int(root, *emc->set_rate).value_or(top);
    } else {
      const auto captured = baseline(emc->rate);
      rate = captured ? sysfs::parse_int(*captured, emc->rate) : top;
    }
    // The top (max and nvpmodel cap) wins over a raised floor, as devfreq.c get_freq_range does.
    rate = std::min(std::max(rate, min.value_or(0)), top);
    put(root, emc->rate, std::to_string(rate));
  }
}

SimulatedPower SimulatedBoard::compute_power() {
  const sysfs::Root& root = *model_root_;
  SimulatedPower p;
  // Host utilization over at least kUtilizationWindowTicks of /proc/stat (the first figure from
  // the load average): between two updates a few ms apart the kernel's 10 ms ticks would make it
  // jump between 0 and 1. A pinned figure (pin_host_utilization) replaces the measurement.
  try {
    const sysfs::Root host("/");
    const auto now = sysfs::read_proc_stat(host);
    if (last_host_stat_) {
      const long cpus = std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN));
      if (now.all.total_ticks() >=
          last_host_stat_->all.total_ticks() + kUtilizationWindowTicks * static_cast<std::uint64_t>(cpus)) {
        if (const auto busy = sysfs::busy_fraction(last_host_stat_->all, now.all)) host_utilization_ = *busy;
        last_host_stat_ = now;
      }
    } else {
      if (host_utilization_ == 0) {
        if (const auto load = sysfs::try_read_string(host, "/proc/loadavg")) {
          const double one_minute = std::atof(load->c_str());
          const long cpus = std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN));
          host_utilization_ = std::clamp(one_minute / static_cast<double>(cpus), 0.0, 1.0);
        }
      }
      last_host_stat_ = now;
    }
  } catch (const std::exception&) {
    // No host /proc (a sandbox): keep the last figure.
  }
  if (pinned_utilization_) {
    host_utilization_ = *pinned_utilization_;
  } else if (shared_utilization_) {
    host_utilization_ = *shared_utilization_;  // a run on this board in another process
  }
  const double u = idle_ ? 0.0 : host_utilization_;
  p.host_utilization = u;

  const std::vector<int> online = online_cpus(root);
  for (const auto& policy : root.glob(std::string(kCpuDir) + "/cpufreq/policy*")) {
    const auto related = sysfs::try_read_string(root, policy + "/related_cpus");
    const auto cur = read_int(root, policy + "/scaling_cur_freq");
    if (!related || !cur) continue;
    int cores = 0;
    for (const int cpu : sysfs::parse_cpu_list(*related, policy)) {
      if (std::binary_search(online.begin(), online.end(), cpu)) ++cores;
    }
    const double f = static_cast<double>(*cur) / 1e6;  // kHz -> GHz
    const double v = 0.60 + 0.25 * f;
    p.cpu_mw += cores * (35.0 + 420.0 * f * v * v * (0.1 + 0.9 * u));
  }
  if (const auto gpu = discover_gpu(root).gpu) {
    const auto cur = read_int(root, gpu->devfreq_path + "/cur_freq");
    double g = gpu->load_permille ? std::clamp(static_cast<double>(*gpu->load_permille) / 1000.0, 0.0, 1.0) : 0.0;
    if (pinned_gpu_load_) {
      g = *pinned_gpu_load_;
      if (gpu->load_path) put_sensor(root, *gpu->load_path, std::to_string(std::llround(g * 1000.0)));
    }
    if (idle_) g = 0;
    const double f = cur ? static_cast<double>(*cur) / 1e9 : 0.0;
    const double v = 0.60 + 0.30 * f;
    p.gpu_mw = 60.0 + 5500.0 * f * v * v * (0.05 + 0.95 * g);
  }
  if (const auto emc = emc_files(root)) {
    if (const auto rate = read_int(root, emc->rate)) p.emc_mw = 150.0 + 0.55 * static_cast<double>(*rate) / 1e6;
  }
  p.soc_mw = 1200.0;
  p.total_mw = p.cpu_mw + p.gpu_mw + p.emc_mw + p.soc_mw;
  return p;
}

void SimulatedBoard::write_sensors(const SimulatedPower& power) {
  const sysfs::Root& root = *model_root_;
  for (const auto& device : discover_power_monitors(root).devices) {
    for (const auto& rail : device.rails) {
      if (!rail.connected || rail.name == served_rail_) continue;
      const auto mw = rail_power_mw(rail.name, power);
      const auto captured_mv = baseline(rail.voltage_path);
      if (!captured_mv) continue;
      if (!mw) {  // not modelled: the rail keeps its captured reading
        put_sensor(root, rail.voltage_path, *captured_mv);
        if (const auto ma = baseline(rail.current_path)) put_sensor(root, rail.current_path, *ma);
        if (rail.power_path) {
          if (const auto p = baseline(*rail.power_path)) put_sensor(root, *rail.power_path, *p);
        }
        continue;
      }
      const std::int64_t mv = sysfs::parse_int(*captured_mv, rail.voltage_path);
      if (mv <= 0) continue;
      const auto ma = static_cast<std::int64_t>(std::llround(*mw * 1000.0 / static_cast<double>(mv)));
      put_sensor(root, rail.voltage_path, std::to_string(mv));
      put_sensor(root, rail.current_path, std::to_string(ma));
      if (rail.power_path) put_sensor(root, *rail.power_path, power_file_text(rail, mv, ma));
    }
  }
  const double rise_c = 1.8 * (power.total_mw - baseline_power_mw_) / 1000.0;
  for (const auto& zone : root.glob("/sys/devices/virtual/thermal/thermal_zone*/temp")) {
    const auto captured = baseline(zone);
    if (!captured) continue;
    const std::int64_t base = sysfs::parse_int(*captured, zone);
    if (base <= -256000) continue;  // power-gated domain stays offline
    put_sensor(root, zone, std::to_string(base + static_cast<std::int64_t>(std::llround(rise_c * 1000.0))));
  }
}

void SimulatedBoard::start_refresh(std::chrono::milliseconds period) {
  stop_refresh();
  refreshing_ = true;
  refresh_thread_ = std::thread([this, period] {
    while (refreshing_) {
      try {
        update_sensors();
      } catch (const std::exception&) {
        // A write racing with the tree's removal at exit: the next round or the stop ends it.
      }
      for (auto slept = std::chrono::milliseconds(0); refreshing_ && slept < period;
           slept += std::chrono::milliseconds(10)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
  });
}

void SimulatedBoard::stop_refresh() {
  refreshing_ = false;
  if (refresh_thread_.joinable()) refresh_thread_.join();
}

void SimulatedBoard::serve_power_trace(const std::string& rail_name, meters::SyntheticPowerTrace trace,
                                       std::chrono::microseconds period) {
  stop_power_trace();
  if (period.count() <= 0) throw std::invalid_argument("simulated board: the trace period must be positive");
  const sysfs::Root& root = *model_root_;
  std::optional<PowerRail> found;
  std::vector<std::string> names;
  for (const auto& device : discover_power_monitors(root).devices) {
    for (const auto& rail : device.rails) {
      if (!rail.connected) continue;
      names.push_back(rail.name);
      if (rail.name == rail_name) found = rail;
    }
  }
  if (!found) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    throw std::invalid_argument(
        fmt::format("simulated {} has no rail '{}'; rails: {}", fixture_, rail_name, list.empty() ? "none" : list));
  }
  const auto captured_mv = baseline(found->voltage_path);
  const std::int64_t mv = captured_mv ? sysfs::parse_int(*captured_mv, found->voltage_path) : 0;
  if (mv <= 0)
    throw std::invalid_argument(
        fmt::format("simulated {}: rail {} has no bus voltage to serve a trace at", fixture_, rail_name));
  {
    std::lock_guard lock(mutex_);
    served_rail_ = rail_name;
    put_sensor(root, found->voltage_path, std::to_string(mv));
  }
  InPlaceFile current(root.resolve(root.canonical(found->current_path)));
  std::optional<InPlaceFile> power;
  if (found->power_path) power.emplace(root.resolve(root.canonical(*found->power_path)));
  {
    std::lock_guard lock(served_mutex_);
    served_.clear();
  }
  trace_start_ns_ = sysfs::monotonic_ns();
  serving_ = true;
  const std::int64_t period_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(period).count();
  const PowerRail rail = *found;
  trace_thread_ = std::thread([this, trace = std::move(trace), current = std::move(current), power = std::move(power),
                               mv, period_ns, rail]() mutable {
    std::int64_t deadline = trace_start_ns_;
    while (serving_.load(std::memory_order_relaxed)) {
      const std::int64_t begin = sysfs::monotonic_ns();
      const double mw = trace.power_mw(begin - trace_start_ns_);
      // The driver's integers: mA at the rail's bus voltage, and its power file's unit.
      const auto ma = static_cast<std::int64_t>(std::llround(mw * 1000.0 / static_cast<double>(mv)));
      const std::string power_text = power_file_text(rail, mv, ma);
      // Power first: a reader of the power file must not see it lag the current.
      if (power) power->write(power_text + "\n");
      current.write(std::to_string(ma) + "\n");
      const std::int64_t end = sysfs::monotonic_ns();
      {
        std::lock_guard lock(served_mutex_);
        served_.push_back(ServedPower{begin, end,
                                      power ? std::stod(power_text) * rail.power_mw_per_unit
                                            : static_cast<double>(mv) * static_cast<double>(ma) / 1000.0});
      }
      deadline += period_ns;
      if (deadline < end) deadline = end;  // overran (descheduled): carry on from now, no burst
      const timespec ts{static_cast<time_t>(deadline / 1'000'000'000), static_cast<long>(deadline % 1'000'000'000)};
      ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
    }
  });
}

void SimulatedBoard::stop_power_trace() {
  serving_ = false;
  if (trace_thread_.joinable()) trace_thread_.join();
  std::lock_guard lock(mutex_);
  served_rail_.clear();
}

std::vector<SimulatedBoard::ServedPower> SimulatedBoard::served_power() const {
  std::lock_guard lock(served_mutex_);
  return served_;
}

}  // namespace jetchar::jetson
