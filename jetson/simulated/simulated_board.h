// The simulated board (`--board sim:<fixture>`): a board fixture expanded into a directory that
// plays "/", kept alive by a behaviour model that runs after every control write (and, when
// asked, on a background timer for the sensors). Everything it produces is modelled and says so.
//
// Behaviour model (what the kernel and firmware would do):
//  - cpuN/online -> /sys/devices/system/cpu/online (kernel CPU list) and each policy's
//    affected_cpus (the online subset of related_cpus); a policy with no online core is inactive:
//    its clock stops counting toward power, and its files fail as the board's kernel fails them
//    (injected errors, sysfs/injected_errors.h): R32 (Linux 4.9) drops the frequency table, so
//    scaling_available_frequencies answers ENODEV; Linux >= 5.19 (R38/R39) answers EBUSY to every
//    read and write of the policy (docs/kernel-formats.md, cpufreq rows).
//  - cpufreq scaling_min/max_freq clamp scaling_cur_freq (and cpuinfo_cur_freq); governor
//    `performance` runs at max, `powersave` at min, others at the fixture's captured frequency
//    clamped into [min, max]. devfreq (GPU) min_freq/max_freq clamp cur_freq/target_freq alike.
//  - EMC: with the BPMP lock (mrq_rate_locked = 1) a written rate holds, capped by the nvpmodel cap
//    (emc_iso_cap / nvpmodel_clk_cap/emc, 0 = no cap); unlocked, the rate is the captured rate
//    clamped to [min_rate, cap]: a rate written without the lock is ignored, as BPMP does.
//    tegra210 likewise with override.emc clk_state/clk_update_rate.
//  - INA3221 rails (hwmon mV/mA, iio mV/mA/mW, integers as the drivers print them) follow the
//    power model below at the rail's captured bus voltage; thermal zones (m°C) rise with power;
//    zones reading -256 °C (power-gated) stay so.
//
// Power model (magnitudes chosen to land in the range Jetson boards show; not a calibration):
//   V_cpu(f) = 0.60 V + 0.25 V/GHz · f,   V_gpu(f) = 0.60 V + 0.30 V/GHz · f          (f in GHz)
//   P_cpu = Σ over online cores of active clusters [35 mW + 420 mW/(GHz·V²) · f · V_cpu(f)² · (0.1 + 0.9 u)]
//   P_gpu = 60 mW + 5500 mW/(GHz·V²) · f_gpu · V_gpu(f)² · (0.05 + 0.95 g)
//   P_emc = 150 mW + 0.55 mW/MHz · f_emc,   P_soc = 1200 mW
//   u = the host's measured CPU busy fraction (/proc/stat over windows of at least 100 ms, the
//   first from /proc/loadavg) unless pinned, here or by another process on the same directory;
//   g = the GPU `load` file (per-mille) when the fixture has one, else 0, unless pinned (a paced
//   run pins both to the time model's busy shares, the idle-power window of a run both to 0: the
//   board idle, whatever the host runs meanwhile).
//   Rails by label: VDD_IN/POM_5V_IN = (P_cpu+P_gpu+P_emc+P_soc)/0.9; VDD_CPU_GPU_CV = P_cpu+P_gpu;
//   VDD_SOC = P_soc+P_emc; VDD_GPU_SOC = P_gpu+P_soc; VDD_CPU_CV, CPU, POM_5V_CPU, VDD_SYS_CPU = P_cpu;
//   GPU, POM_5V_GPU, VDD_SYS_GPU = P_gpu; SOC, VDD_SYS_SOC = P_soc+P_emc/2; VDDRQ,
//   VDDQ_VDD2_1V8AO, VDD_SYS_DDR = P_emc/2; CV = 0; other rails (VIN_SYS_5V0, SYS5V, NC) keep
//   their captured values. Current = P / V_bus.
//   Thermal: T = T_captured + 1.8 °C/W · (P_total − P_total at the captured state).
//
// CPU time (/proc/stat, simulated_proc_stat.h): while the sensors are refreshed (a measurement, a
// monitor), every online CPU's counters advance with u, so a reader of CPU utilisation sees the
// model's load. A board directory may be open in several processes at once (a monitor beside a
// run): the counters, when they last advanced and the u a run pinned (its pid with it) are shared
// in the directory (kCpuStateFile, under an exclusive lock), so every interval is counted once and
// a process with no pin of its own takes a live process's pinned u, for its rails as for
// /proc/stat. Reading a board (no refresh, no pin) changes none of it.
//
// Sensor files (rails, temperatures, /proc/stat) are rewritten in place, as sysfs regenerates an attribute on
// every read: a reader that keeps a file open and re-reads it with pread (the telemetry sampler)
// sees each new value. Control-derived attributes are replaced whole (crash safety, see put()).
//
// A known power signal can replace the model on one rail (serve_power_trace): tests sample it
// through the real sampler and compare window energies with the signal's exact integral.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "jetson/meters/synthetic_power_trace.h"
#include "jetson/simulated/owned_temp_dir.h"
#include "sysfs/proc_stat.h"
#include "sysfs/root.h"

namespace jetchar::jetson {

/// The model's figures for the board's current state, mW.
struct SimulatedPower {
  double cpu_mw = 0;
  double gpu_mw = 0;
  double emc_mw = 0;
  double soc_mw = 0;
  double total_mw = 0;  ///< module total (cpu + gpu + emc + soc)
  double host_utilization = 0;
};

class SimulatedBoard {
 public:
  /// Expands `fixture` (a name from tests/fixtures/boards or a manifest path) into `dir`, or into
  /// a fresh temporary directory (removed on destruction) when `dir` is empty. A `dir` that
  /// already holds a simulated board is reused as it stands (state persists between invocations);
  /// a non-empty `dir` that does not is refused.
  explicit SimulatedBoard(std::string_view fixture, std::optional<std::filesystem::path> dir = std::nullopt);
  ~SimulatedBoard();
  SimulatedBoard(const SimulatedBoard&) = delete;
  SimulatedBoard& operator=(const SimulatedBoard&) = delete;

  const std::filesystem::path& root_dir() const { return root_dir_; }
  const sysfs::Root& root() const { return *root_; }
  const std::string& fixture() const { return fixture_; }

  /// Runs the behaviour model once (derived clocks, CPU lists, rails, temperatures).
  void update();
  /// Only the sensors (rails, temperatures): what the background refresh runs.
  void update_sensors();
  SimulatedPower power() const;
  /// Pins u, the host utilization of the power model, to a fraction in [0, 1] (nullopt: measure
  /// the host again): for checks of the model that must not depend on what else the host runs.
  void pin_host_utilization(std::optional<double> utilization);
  /// Pins g, the GPU load of the power model, to a fraction in [0, 1] (nullopt: the `load` file
  /// again) and shows it in the GPU's per-mille `load` file when the board has one: a run paced
  /// by the time model (experiments/modelled_time_pacer.h) sets the modelled busy share here, so
  /// the rails follow the same mode as the times.
  void pin_gpu_load(std::optional<double> load);
  /// While true, the power model takes the board as idle (u and g 0, whatever is pinned or
  /// measured): a server waiting for queries between batches. A flag only, cheap to flip per
  /// query: the sensors' next refresh follows it.
  void set_idle(bool idle) { idle_ = idle; }

  /// Refreshes the sensors every `period` on a background thread until stop_refresh().
  void start_refresh(std::chrono::milliseconds period);
  void stop_refresh();

  /// One write of a served power trace: when it began and ended (CLOCK_MONOTONIC) and the power
  /// the rail's files show afterwards (hwmon: mV × mA / 1000; iio: its integer power file).
  struct ServedPower {
    std::int64_t begin_ns = 0;
    std::int64_t end_ns = 0;
    double power_mw = 0;
  };
  /// Serves `trace` on the connected rail labelled `rail` instead of the power model: a thread
  /// rewrites the rail's current (and power, on the iio driver) every `period` on absolute
  /// deadlines with trace(t − trace_start_ns()) at the rail's captured bus voltage, recording each
  /// write. The model's refresh leaves that rail alone meanwhile. Throws std::invalid_argument for
  /// a rail the board does not have, naming the rails it has.
  void serve_power_trace(const std::string& rail, meters::SyntheticPowerTrace trace, std::chrono::microseconds period);
  void stop_power_trace();
  /// CLOCK_MONOTONIC of the served trace's t = 0.
  std::int64_t trace_start_ns() const { return trace_start_ns_; }
  /// Every write so far, in order.
  std::vector<ServedPower> served_power() const;

  /// The marker file that tells a simulated root apart (kept inside the root directory).
  static constexpr const char* kMarker = ".jetchar-simulated.json";
  /// The CPU state the processes simulating one directory share (kept inside the root directory).
  static constexpr const char* kCpuStateFile = ".jetchar-simulated-cpu.json";
  /// True when `dir` holds a simulated board.
  static bool is_simulated_root(const std::filesystem::path& dir);

 private:
  void open_roots();
  void update_clocks();
  void inject_inactive_policy_errors(const std::vector<std::string>& inactive_policies);
  SimulatedPower compute_power();
  void write_sensors(const SimulatedPower& power);
  /// Under the shared CPU state's lock: takes another live process's pin, advances /proc/stat to
  /// now at the load that held since its last advance, runs `at_now` (a new pin, or the model) and
  /// records this process's pin.
  void share_cpu_state(const std::function<void()>& at_now);
  std::optional<std::string> baseline(const std::string& path) const;

  OwnedTempDir scratch_;  ///< the temporary folder root_dir_ is, when no folder was given
  std::filesystem::path root_dir_;
  std::string fixture_;
  std::unique_ptr<sysfs::Root> root_;         ///< as a reader sees the board (injected errors included)
  std::unique_ptr<sysfs::Root> model_root_;   ///< the same tree without them, for the model itself
  sysfs::InjectedErrorTable fixture_errors_;  ///< the fixture's own injected errors
  std::string kernel_release_;
  std::string baseline_json_;  ///< captured values of the derived attributes (JSON object text)
  double baseline_power_mw_ = 0;
  std::optional<sysfs::ProcStat> last_host_stat_;
  double host_utilization_ = 0;
  std::optional<double> pinned_utilization_;  // guarded by mutex_
  std::optional<double> pinned_gpu_load_;     // guarded by mutex_
  std::atomic<bool> idle_{false};
  std::optional<double> shared_utilization_;  ///< another live process's pin; guarded by mutex_
  std::optional<std::string> gpu_load_before_pin_;
  SimulatedPower last_power_;
  mutable std::mutex mutex_;
  std::atomic<bool> refreshing_{false};
  std::thread refresh_thread_;

  std::string served_rail_;  // guarded by mutex_; empty when no trace is served
  std::int64_t trace_start_ns_ = 0;
  std::vector<ServedPower> served_;  // guarded by served_mutex_
  mutable std::mutex served_mutex_;
  std::atomic<bool> serving_{false};
  std::thread trace_thread_;
};

}  // namespace jetchar::jetson
