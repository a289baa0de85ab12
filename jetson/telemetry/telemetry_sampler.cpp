#include "jetson/telemetry/telemetry_sampler.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

#include "jetson/nvml/nvml_library.h"
#include "sysfs/monotonic_clock.h"
#include "sysfs/unique_fd.h"

namespace jetchar::jetson {
namespace {

using sysfs::monotonic_ns;

// CPU time this thread has used: the sampler's own cost per sample.
std::int64_t thread_cpu_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// The errors a tree that plays "/" injects (sysfs/injected_errors.h), as they stand at one
// sample: the table is fetched once a sample (one stat of its file), not once a file read, which
// doubled a simulated board's syscalls per sample. The kernel decides at every read; a sample's
// reads are one moment.
struct InjectedNow {
  std::optional<sysfs::Root> tree;  ///< unset for the host's own root, which injects nothing
  std::shared_ptr<const sysfs::InjectedErrorTable> table;
  void refresh() {
    if (tree) table = tree->injected_errors();
  }
};

// A file opened once and re-read from offset 0: sysfs regenerates the content on every read at
// offset 0, and pread avoids a seek per read.
class OpenFile {
 public:
  OpenFile() = default;
  OpenFile(const sysfs::Root& root, const std::string& kernel_path, const InjectedNow* injected) {
    if (!root.is_host_root()) {
      injected_ = injected;
      canonical_path_ = root.canonical(kernel_path);
    }
    const std::string path = root.resolve(kernel_path).string();
    // O_NOATIME spares every read an access-time update where the files are ordinary files (a
    // simulated board, a fixture); sysfs/procfs ignore it. Refused (EPERM) for files of another
    // owner without CAP_FOWNER: then open normally.
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOATIME);
    if (fd < 0 && errno == EPERM) fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    error_ = fd < 0 ? errno : 0;
    fd_.reset(fd);
  }
  bool ok() const { return fd_.valid(); }
  int error() const { return error_; }

  /// Reads the whole (small) file into `buffer`; returns the length or -1.
  ssize_t read(char* buffer, std::size_t size) const {
    if (!fd_) return -1;
    if (injected_ && injected_->table) {
      if (const auto error = sysfs::find_injected_error(*injected_->table, canonical_path_, sysfs::Access::kRead)) {
        errno = *error;
        return -1;
      }
    }
    return ::pread(fd_.get(), buffer, size, 0);
  }

  /// Parses the leading decimal integer; false when unreadable or malformed.
  bool read_int(double& value) const {
    char buffer[64];
    const ssize_t n = read(buffer, sizeof buffer);
    if (n <= 0) return false;
    const char* begin = buffer;
    const char* end = buffer + n;
    while (begin < end && (*begin == ' ' || *begin == '\t')) ++begin;
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(begin, end, v);
    if (ec != std::errc() || ptr == begin) return false;
    value = static_cast<double>(v);
    return true;
  }

 private:
  sysfs::UniqueFd fd_;
  int error_ = 0;
  const InjectedNow* injected_ = nullptr;  ///< null for the host's own root
  std::string canonical_path_;
};

// Jiffies of one CPU from a /proc/stat line: busy and total.
struct CpuTimes {
  std::uint64_t busy = 0;
  std::uint64_t total = 0;
  bool present = false;
};

// A field's value, valid, with extra flags (repeated, carried).
void set_value(std::vector<FieldValue>& values, std::size_t field, double value, std::uint8_t extra = 0) {
  values[field].value = value;
  values[field].flags = field_flags::kValid | extra;
}

// The sampler's layout as its sources are opened: fields appended in order (the order of the
// sample's values), and a note for every source left out.
struct LayoutBuilder {
  const sysfs::Root& root;
  const InjectedNow& injected;
  TelemetryLayout& layout;
  std::vector<std::string>& notes;

  OpenFile open(const std::string& kernel_path) const { return OpenFile(root, kernel_path, &injected); }

  std::size_t add_field(std::string name, std::string unit, FieldGroup group) {
    layout.fields.push_back(FieldInfo{std::move(name), std::move(unit), group});
    return layout.fields.size() - 1;
  }
  void note_missing(const std::string& what, const std::string& path, int error) {
    notes.push_back(fmt::format("{}: {} cannot be opened ({}); left out", what, path, std::strerror(error)));
  }
};

}  // namespace

struct TelemetrySampler::Source {
  struct Rail {
    OpenFile voltage, current, power;
    RailFields fields;
    std::optional<std::int64_t> update_interval_ns;
    double power_mw_per_unit = 1.0;
    double last_v = -1, last_i = -1, last_p = -1;
    std::int64_t last_change_ns = 0;
  };
  struct Counter {
    OpenFile energy;
    std::size_t field = 0;
    std::optional<std::int64_t> max_range_uj;
    double last_uj = -1;
    std::int64_t last_ns = 0;
  };
  struct Scalar {
    OpenFile file;
    std::size_t field = 0;
    double scale = 1.0;
  };
  std::vector<Rail> rails;
  std::vector<Counter> counters;
  std::vector<Scalar> scalars;     // cluster freqs, GPU, EMC freq, temperatures
  std::optional<Scalar> gpu_load;  // per-mille → %
  std::optional<Scalar> emc_activity;
  std::optional<std::size_t> emc_freq_field, emc_util_field;

  // GPUs read through NVML: calls on a handle instead of files (telemetry_sources.h).
  struct NvmlGpu {
    nvml_abi::nvmlDevice_t device = nullptr;
    std::optional<std::size_t> power, energy;                 // every sample
    std::optional<std::size_t> power_average, power_instant;  // every sample, by field id (one call for both)
    std::optional<std::size_t> graphics_clock, sm_clock, memory_clock, util, memory_util, temperature, memory_used;
    double last_mj = -1;
    std::int64_t last_ns = 0;
  };
  std::shared_ptr<const NvmlLibrary> nvml;
  std::vector<NvmlGpu> nvml_gpus;

  OpenFile proc_stat;
  std::vector<int> cpus;  // cpu numbers with a util field
  std::vector<std::size_t> cpu_fields;
  std::vector<CpuTimes> cpu_prev, cpu_now;  // indexed by cpu number
  std::vector<double> cpu_last_util;        // indexed like cpus; -1 = none yet
  OpenFile meminfo;
  std::optional<std::size_t> mem_field;
  std::vector<char> big_buffer = std::vector<char>(64 * 1024);
  InjectedNow injected;  // the files above point at it: Source never moves (unique_ptr)

  // Sub-rate fields (see the header): read at most every slow_period_ns; in between their last
  // values are carried over, flagged kCarried.
  std::int64_t slow_period_ns = 10'000'000;
  std::vector<std::size_t> slow_fields;
  std::vector<FieldValue> slow_last;  // indexed like slow_fields
  std::int64_t slow_read_ns = INT64_MIN / 2;

  // Opening, one kind of source each; the constructor calls them in the layout's field order.
  void open_rails(LayoutBuilder& b, const std::vector<RailSource>& sources);
  void open_energy_counters(LayoutBuilder& b, const std::vector<EnergyCounterSource>& sources);
  void open_nvml_gpus(LayoutBuilder& b, const std::shared_ptr<const NvmlLibrary>& library,
                      const std::vector<NvmlGpuSource>& gpus);
  void open_cpu_load(LayoutBuilder& b, std::vector<int> cpu_numbers);
  std::optional<Scalar> open_scalar(LayoutBuilder& b, const std::string& what, const std::string& path,
                                    std::string field, std::string unit, FieldGroup group, double scale);
  /// CPU cluster clocks, GPU load and clock, EMC clock and activity, memory, temperatures.
  void open_scalars(LayoutBuilder& b, const TelemetrySources& sources);
  /// Everything but the rails and energy counters is read at most every `sub_rate_period_ns`
  /// when that is longer than a sample period, else every sample.
  void mark_sub_rate_fields(TelemetryLayout& layout, std::int64_t sample_period_ns, std::int64_t sub_rate_period_ns);

  // What read_into reads, one concern each (they write into a sample's values).
  void read_rails(std::vector<FieldValue>& values, std::int64_t t_ns);
  void read_energy_counters(std::vector<FieldValue>& values, std::int64_t t_ns);
  void read_nvml_power(std::vector<FieldValue>& values, std::int64_t t_ns);
  void read_nvml_power_fields(const NvmlGpu& gpu, std::vector<FieldValue>& values) const;
  void read_scalars(std::vector<FieldValue>& values);
  void read_nvml_sub_rate(std::vector<FieldValue>& values);
  void read_emc_utilisation(std::vector<FieldValue>& values);
  void read_cpu_load(std::vector<FieldValue>& values);
  void read_memory(std::vector<FieldValue>& values);
};

void TelemetrySampler::Source::open_rails(LayoutBuilder& b, const std::vector<RailSource>& sources) {
  for (const auto& rail : sources) {
    Rail r;
    r.voltage = b.open(rail.voltage_path);
    r.current = b.open(rail.current_path);
    if (rail.power_path) r.power = b.open(*rail.power_path);
    if (!r.power.ok() && !(r.voltage.ok() && r.current.ok())) {
      b.note_missing("rail " + rail.name, r.voltage.ok() ? rail.current_path : rail.voltage_path,
                     r.voltage.ok() ? r.current.error() : r.voltage.error());
      continue;
    }
    r.fields.name = rail.name;
    r.fields.role = rail.role;
    if (r.voltage.ok()) r.fields.voltage_mv = b.add_field(rail.name + ".voltage_mv", "mV", FieldGroup::kRail);
    if (r.current.ok()) r.fields.current_ma = b.add_field(rail.name + ".current_ma", "mA", FieldGroup::kRail);
    r.fields.power_mw = b.add_field(rail.name + ".power_mw", "mW", FieldGroup::kRail);
    r.update_interval_ns = rail.update_interval_ns;
    r.power_mw_per_unit = rail.power_mw_per_unit;
    b.layout.rails.push_back(r.fields);
    rails.push_back(std::move(r));
  }
}

void TelemetrySampler::Source::open_energy_counters(LayoutBuilder& b, const std::vector<EnergyCounterSource>& sources) {
  for (const auto& counter : sources) {
    Counter c;
    c.energy = b.open(counter.energy_path);
    if (!c.energy.ok()) {
      b.note_missing("energy counter " + counter.name, counter.energy_path, c.energy.error());
      continue;
    }
    // Opening can succeed where reading fails (RAPL energy_uj is 0400 root): probe once.
    double probe = 0;
    if (!c.energy.read_int(probe)) {
      b.notes.push_back(
          fmt::format("energy counter {}: {} is not readable; left out", counter.name, counter.energy_path));
      continue;
    }
    c.max_range_uj = counter.max_energy_range_uj;
    c.field = b.add_field(counter.name + ".power_mw", "mW", FieldGroup::kEnergyCounter);
    b.layout.rails.push_back(
        RailFields{counter.name, energy::RailRole::kModule, std::nullopt, std::nullopt, c.field, true});
    counters.push_back(std::move(c));
  }
}

void TelemetrySampler::Source::open_nvml_gpus(LayoutBuilder& b, const std::shared_ptr<const NvmlLibrary>& library,
                                              const std::vector<NvmlGpuSource>& gpus) {
  nvml = library;
  const NvmlLibrary& lib = *nvml;
  for (const auto& gpu : gpus) {
    const auto handle = lib.handle_by_uuid(gpu.uuid);
    if (!handle.ok()) {
      b.notes.push_back(fmt::format("NVML GPU {} ({}): {}; left out", gpu.name, gpu.uuid, handle.error));
      continue;
    }
    NvmlGpu g;
    g.device = *handle.value;
    // Each reading is probed once: one NVML refuses (NotSupported) is left out with its reason.
    const auto note_refused = [&](const std::string& what, const std::string& error) {
      b.notes.push_back(fmt::format("NVML GPU {} {}: {}; left out", gpu.name, what, error));
    };
    const auto power = lib.power_usage_mw(g.device);
    const auto energy = lib.total_energy_mj(g.device);
    if (energy.ok()) {
      g.energy = b.add_field(gpu.name + "_energy.power_mw", "mW", FieldGroup::kEnergyCounter);
      b.layout.rails.push_back(
          RailFields{gpu.name + "_energy", energy::RailRole::kModule, std::nullopt, std::nullopt, *g.energy, true});
    } else {
      note_refused("energy counter", energy.error);
    }
    if (power.ok()) {
      g.power = b.add_field(gpu.name + "_power.power_mw", "mW", FieldGroup::kRail);
      // With a counter, the polled power is the same energy again: a sub-rail, never in a total.
      b.layout.rails.push_back(RailFields{gpu.name + "_power",
                                          energy.ok() ? energy::RailRole::kSubRail : energy::RailRole::kModule,
                                          std::nullopt, std::nullopt, *g.power});
    } else {
      note_refused("power", power.error);
    }
    // The driver's 1 s mean and its instant reading: the same energy again, sub-rails labelled by source.
    const auto power_field = [&](std::optional<std::size_t>& slot, unsigned int id, const std::string& rail) {
      const auto reading = lib.power_field_mw(g.device, id);
      if (!reading.ok()) return note_refused(rail + " power", reading.error);
      slot = b.add_field(gpu.name + "_power_" + rail + ".power_mw", "mW", FieldGroup::kRail);
      b.layout.rails.push_back(
          RailFields{gpu.name + "_power_" + rail, energy::RailRole::kSubRail, std::nullopt, std::nullopt, *slot});
    };
    power_field(g.power_average, nvml_abi::NVML_FI_DEV_POWER_AVERAGE, "average");
    power_field(g.power_instant, nvml_abi::NVML_FI_DEV_POWER_INSTANT, "instant");
    const auto probe = [&](std::optional<std::size_t>& slot, const auto& result, const std::string& what,
                           std::string field, std::string unit, FieldGroup group) {
      if (result.ok()) slot = b.add_field(gpu.name + "." + std::move(field), std::move(unit), group);
      else note_refused(what, result.error);
    };
    probe(g.graphics_clock, lib.clock_mhz(g.device, nvml_abi::NVML_CLOCK_GRAPHICS), "graphics clock",
          "graphics_clock_mhz", "MHz", FieldGroup::kNvmlGpu);
    probe(g.sm_clock, lib.clock_mhz(g.device, nvml_abi::NVML_CLOCK_SM), "SM clock", "sm_clock_mhz", "MHz",
          FieldGroup::kNvmlGpu);
    probe(g.memory_clock, lib.clock_mhz(g.device, nvml_abi::NVML_CLOCK_MEM), "memory clock", "memory_clock_mhz", "MHz",
          FieldGroup::kNvmlGpu);
    const auto utilization = lib.utilization(g.device);
    probe(g.util, utilization, "utilisation", "util_pct", "%", FieldGroup::kNvmlGpu);
    probe(g.memory_util, utilization, "memory utilisation", "memory_util_pct", "%", FieldGroup::kNvmlGpu);
    probe(g.memory_used, lib.memory(g.device), "memory", "memory_used_kib", "KiB", FieldGroup::kNvmlGpu);
    probe(g.temperature, lib.temperature_c(g.device), "temperature", "temp_mc", "m°C", FieldGroup::kTemperature);
    nvml_gpus.push_back(g);
  }
}

// `cpu_numbers` empty: every cpuN line of /proc/stat.
void TelemetrySampler::Source::open_cpu_load(LayoutBuilder& b, std::vector<int> cpu_numbers) {
  proc_stat = b.open("/proc/stat");
  if (!proc_stat.ok()) {
    b.note_missing("CPU utilisation", "/proc/stat", proc_stat.error());
    return;
  }
  if (cpu_numbers.empty()) {
    const ssize_t n = proc_stat.read(big_buffer.data(), big_buffer.size());
    std::string_view text(big_buffer.data(), n > 0 ? static_cast<std::size_t>(n) : 0);
    std::size_t at = 0;
    while (at < text.size()) {
      const std::size_t eol = std::min(text.find('\n', at), text.size());
      const std::string_view line = text.substr(at, eol - at);
      if (line.size() > 3 && line.substr(0, 3) == "cpu" && line[3] >= '0' && line[3] <= '9') {
        int cpu = 0;
        std::from_chars(line.data() + 3, line.data() + line.size(), cpu);
        cpu_numbers.push_back(cpu);
      }
      at = eol + 1;
    }
  }
  std::sort(cpu_numbers.begin(), cpu_numbers.end());
  for (int cpu : cpu_numbers) {
    cpus.push_back(cpu);
    cpu_fields.push_back(b.add_field(fmt::format("cpu{}.util_pct", cpu), "%", FieldGroup::kCpuUtil));
  }
  const int max_cpu = cpu_numbers.empty() ? 0 : cpu_numbers.back();
  cpu_prev.assign(static_cast<std::size_t>(max_cpu) + 1, {});
  cpu_now.assign(static_cast<std::size_t>(max_cpu) + 1, {});
  cpu_last_util.assign(cpus.size(), -1.0);
}

std::optional<TelemetrySampler::Source::Scalar> TelemetrySampler::Source::open_scalar(
    LayoutBuilder& b, const std::string& what, const std::string& path, std::string field, std::string unit,
    FieldGroup group, double scale) {
  Scalar s;
  s.file = b.open(path);
  if (!s.file.ok()) {
    b.note_missing(what, path, s.file.error());
    return std::nullopt;
  }
  s.field = b.add_field(std::move(field), std::move(unit), group);
  s.scale = scale;
  return s;
}

void TelemetrySampler::Source::open_scalars(LayoutBuilder& b, const TelemetrySources& sources) {
  for (const auto& cluster : sources.cpu_clusters) {
    if (auto s = open_scalar(b, "CPU frequency " + cluster.name, cluster.cur_freq_path, cluster.name + ".freq_khz",
                             "kHz", FieldGroup::kCpuFreq, 1.0)) {
      scalars.push_back(std::move(*s));
    }
  }
  if (sources.gpu_load_path) {
    gpu_load = open_scalar(b, "GPU load", *sources.gpu_load_path, "gpu.load_pct", "%", FieldGroup::kGpu, 0.1);
  }
  if (sources.gpu_freq_path) {
    if (auto s = open_scalar(b, "GPU frequency", *sources.gpu_freq_path, "gpu.freq_hz", "Hz", FieldGroup::kGpu, 1.0)) {
      scalars.push_back(std::move(*s));
    }
  }
  if (sources.emc_freq_path) {
    if (auto s = open_scalar(b, "EMC frequency", *sources.emc_freq_path, "emc.freq_hz", "Hz", FieldGroup::kEmc, 1.0)) {
      emc_freq_field = s->field;
      scalars.push_back(std::move(*s));
    }
  }
  if (sources.emc_activity_path) {
    emc_activity =
        open_scalar(b, "EMC activity", *sources.emc_activity_path, "emc.util_pct", "%", FieldGroup::kEmc, 1.0);
    if (emc_activity) emc_util_field = emc_activity->field;
  }
  if (sources.memory) {
    meminfo = b.open("/proc/meminfo");
    if (meminfo.ok()) mem_field = b.add_field("mem.used_kib", "KiB", FieldGroup::kMemory);
    else b.note_missing("memory", "/proc/meminfo", meminfo.error());
  }
  for (const auto& temp : sources.temperatures) {
    if (auto s = open_scalar(b, "temperature " + temp.name, temp.path, temp.name + ".temp_mc", "m°C",
                             FieldGroup::kTemperature, 1.0)) {
      scalars.push_back(std::move(*s));
    }
  }
}

void TelemetrySampler::Source::mark_sub_rate_fields(TelemetryLayout& layout, std::int64_t sample_period_ns,
                                                    std::int64_t sub_rate_period_ns) {
  slow_period_ns = sub_rate_period_ns > sample_period_ns ? sub_rate_period_ns : 0;
  for (std::size_t f = 0; f < layout.fields.size(); ++f) {
    const FieldGroup group = layout.fields[f].group;
    if (group == FieldGroup::kRail || group == FieldGroup::kEnergyCounter) continue;
    slow_fields.push_back(f);
    layout.fields[f].read_period_ns = slow_period_ns;
  }
  slow_last.resize(slow_fields.size());
}

TelemetrySampler::TelemetrySampler(const sysfs::Root& root, const TelemetrySources& sources, SamplerOptions options)
    : options_(options),
      power_monitors_(sources.power_monitors),
      notes_(sources.notes),
      source_(std::make_unique<Source>()) {
  if (!(options_.rate_hz >= 1.0 && options_.rate_hz <= 1000.0)) {
    throw std::invalid_argument(
        fmt::format("sampling rate {} Hz is out of range; valid: 1 to 1000 Hz", options_.rate_hz));
  }
  if (options_.ring_capacity < 2) options_.ring_capacity = 2;
  auto& src = *source_;
  if (!root.is_host_root()) src.injected.tree = root;
  src.injected.refresh();
  LayoutBuilder builder{root, src.injected, layout_, notes_};
  src.open_rails(builder, sources.rails);
  src.open_energy_counters(builder, sources.energy_counters);
  if (sources.nvml) src.open_nvml_gpus(builder, sources.nvml, sources.nvml_gpus);
  if (sources.cpu_utilization) src.open_cpu_load(builder, sources.cpus);
  src.open_scalars(builder, sources);
  src.mark_sub_rate_fields(layout_, static_cast<std::int64_t>(1e9 / options_.rate_hz), options_.sub_rate_period_ns);

  ring_.resize(options_.ring_capacity);
  for (auto& sample : ring_) sample.values.resize(layout_.fields.size());
}

TelemetrySampler::~TelemetrySampler() { stop(); }

// Rails: V, I and P each sample, with repeated register reads flagged.
void TelemetrySampler::Source::read_rails(std::vector<FieldValue>& values, std::int64_t t_ns) {
  for (auto& rail : rails) {
    double v = 0, i = 0, p = 0;
    const bool have_v = rail.voltage.ok() && rail.voltage.read_int(v);
    const bool have_i = rail.current.ok() && rail.current.read_int(i);
    bool have_p = false;
    if (rail.power.ok()) {
      have_p = rail.power.read_int(p);
      p *= rail.power_mw_per_unit;
    } else if (have_v && have_i) {
      p = v * i / 1000.0;
      have_p = true;
    }
    // Identical V, I and P within the monitor's conversion interval: a repeated register read,
    // not a new measurement. Without a known interval, identical values are assumed repeated.
    std::uint8_t repeated = 0;
    if (have_p && v == rail.last_v && i == rail.last_i && p == rail.last_p) {
      if (!rail.update_interval_ns || t_ns - rail.last_change_ns < *rail.update_interval_ns) {
        repeated = field_flags::kRepeated;
      }
    } else if (have_p) {
      rail.last_v = v;
      rail.last_i = i;
      rail.last_p = p;
      rail.last_change_ns = t_ns;
    }
    if (have_v && rail.fields.voltage_mv) set_value(values, *rail.fields.voltage_mv, v, repeated);
    if (have_i && rail.fields.current_ma) set_value(values, *rail.fields.current_ma, i, repeated);
    if (have_p) set_value(values, rail.fields.power_mw, p, repeated);
  }
}

// Energy counters (RAPL): the power since the previous sample.
void TelemetrySampler::Source::read_energy_counters(std::vector<FieldValue>& values, std::int64_t t_ns) {
  for (auto& counter : counters) {
    double uj = 0;
    if (!counter.energy.read_int(uj)) continue;
    if (counter.last_uj >= 0 && t_ns > counter.last_ns) {
      double delta = uj - counter.last_uj;
      if (delta < 0 && counter.max_range_uj) delta += static_cast<double>(*counter.max_range_uj);
      if (delta >= 0)
        set_value(values, counter.field, delta / 1000.0 / (static_cast<double>(t_ns - counter.last_ns) / 1e9));
    }
    counter.last_uj = uj;
    counter.last_ns = t_ns;
  }
}

// NVML GPUs' power and energy counter, every sample.
void TelemetrySampler::Source::read_nvml_power(std::vector<FieldValue>& values, std::int64_t t_ns) {
  for (auto& gpu : nvml_gpus) {
    const auto& fn = nvml->functions();
    if (gpu.power) {
      unsigned int mw = 0;
      if (fn.power_usage(gpu.device, &mw) == nvml_abi::NVML_SUCCESS)
        set_value(values, *gpu.power, static_cast<double>(mw));
    }
    if (gpu.energy) {
      unsigned long long mj = 0;
      if (fn.total_energy(gpu.device, &mj) == nvml_abi::NVML_SUCCESS) {
        const auto now_mj = static_cast<double>(mj);
        // mJ per second is mW. The counter is 64-bit: no wrap to undo.
        if (gpu.last_mj >= 0 && t_ns > gpu.last_ns && now_mj >= gpu.last_mj) {
          set_value(values, *gpu.energy, (now_mj - gpu.last_mj) / (static_cast<double>(t_ns - gpu.last_ns) / 1e9));
        }
        gpu.last_mj = now_mj;
        gpu.last_ns = t_ns;
      }
    }
    read_nvml_power_fields(gpu, values);
  }
}

void TelemetrySampler::Source::read_nvml_power_fields(const NvmlGpu& gpu, std::vector<FieldValue>& values) const {
  std::array<nvml_abi::nvmlFieldValue_t, 2> fields{};
  std::array<std::size_t, 2> slots{};
  int count = 0;
  for (const auto& [slot, id] : {std::pair{gpu.power_average, nvml_abi::NVML_FI_DEV_POWER_AVERAGE},
                                 std::pair{gpu.power_instant, nvml_abi::NVML_FI_DEV_POWER_INSTANT}}) {
    if (!slot) continue;
    fields[count].fieldId = id;
    fields[count].scopeId = nvml_abi::NVML_POWER_SCOPE_GPU;
    slots[count++] = *slot;
  }
  if (count == 0 || nvml->functions().field_values(gpu.device, count, fields.data()) != nvml_abi::NVML_SUCCESS) return;
  for (int k = 0; k < count; ++k) {
    if (fields[k].nvmlReturn == nvml_abi::NVML_SUCCESS && fields[k].valueType == nvml_abi::NVML_VALUE_TYPE_UNSIGNED_INT)
      set_value(values, slots[k], static_cast<double>(fields[k].value.uiVal));
  }
}

// Sub-rate: clocks, temperatures and other single-number files, and the GPU load.
void TelemetrySampler::Source::read_scalars(std::vector<FieldValue>& values) {
  for (auto& scalar : scalars) {
    double value = 0;
    if (scalar.file.read_int(value)) set_value(values, scalar.field, value * scalar.scale);
  }
  if (gpu_load) {
    double value = 0;
    if (gpu_load->file.read_int(value)) set_value(values, gpu_load->field, value * gpu_load->scale);
  }
}

// Sub-rate: NVML GPUs' clocks, utilisation, memory and temperature.
void TelemetrySampler::Source::read_nvml_sub_rate(std::vector<FieldValue>& values) {
  for (auto& gpu : nvml_gpus) {
    const auto& fn = nvml->functions();
    unsigned int value = 0;
    const auto clock = [&](const std::optional<std::size_t>& field, nvml_abi::nvmlClockType_t type) {
      if (field && fn.clock_info(gpu.device, type, &value) == nvml_abi::NVML_SUCCESS) set_value(values, *field, value);
    };
    clock(gpu.graphics_clock, nvml_abi::NVML_CLOCK_GRAPHICS);
    clock(gpu.sm_clock, nvml_abi::NVML_CLOCK_SM);
    clock(gpu.memory_clock, nvml_abi::NVML_CLOCK_MEM);
    if (gpu.util || gpu.memory_util) {
      nvml_abi::nvmlUtilization_t utilization{};
      if (fn.utilization(gpu.device, &utilization) == nvml_abi::NVML_SUCCESS) {
        if (gpu.util) set_value(values, *gpu.util, utilization.gpu);
        if (gpu.memory_util) set_value(values, *gpu.memory_util, utilization.memory);
      }
    }
    if (gpu.memory_used) {
      nvml_abi::nvmlMemory_t memory{};
      if (fn.memory(gpu.device, &memory) == nvml_abi::NVML_SUCCESS)
        set_value(values, *gpu.memory_used, static_cast<double>(memory.used) / 1024.0);
    }
    if (gpu.temperature &&
        fn.temperature(gpu.device, nvml_abi::NVML_TEMPERATURE_GPU, &value) == nvml_abi::NVML_SUCCESS) {
      set_value(values, *gpu.temperature, value * 1000.0);
    }
  }
}

// Sub-rate: EMC utilisation from its activity counter and the clock just read.
void TelemetrySampler::Source::read_emc_utilisation(std::vector<FieldValue>& values) {
  if (emc_activity && emc_freq_field && values[*emc_freq_field].valid()) {
    double activity = 0;
    const double rate_khz = values[*emc_freq_field].value / 1000.0;
    if (emc_activity->file.read_int(activity) && rate_khz > 0)
      set_value(values, *emc_util_field, activity / rate_khz * 100.0);
  }
}

// Sub-rate: per-core load from /proc/stat against the previous reading.
void TelemetrySampler::Source::read_cpu_load(std::vector<FieldValue>& values) {
  if (!cpus.empty()) {
    const ssize_t n = proc_stat.read(big_buffer.data(), big_buffer.size());
    for (auto& t : cpu_now) t.present = false;
    if (n > 0) {
      const char* p = big_buffer.data();
      const char* end = p + n;
      while (p < end) {
        const char* eol = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
        if (eol == nullptr) eol = end;
        if (eol - p > 4 && p[0] == 'c' && p[1] == 'p' && p[2] == 'u' && p[3] >= '0' && p[3] <= '9') {
          int cpu = 0;
          auto [q, ec] = std::from_chars(p + 3, eol, cpu);
          if (ec == std::errc() && cpu >= 0 && static_cast<std::size_t>(cpu) < cpu_now.size()) {
            std::uint64_t fields[10] = {};
            int count = 0;
            while (q < eol && count < 10) {
              while (q < eol && *q == ' ') ++q;
              auto [r, ec2] = std::from_chars(q, eol, fields[count]);
              if (ec2 != std::errc()) break;
              q = r;
              ++count;
            }
            if (count >= 4) {
              // user nice system idle iowait irq softirq steal (guest is already in user)
              std::uint64_t total = 0;
              for (int k = 0; k < std::min(count, 8); ++k) total += fields[k];
              const std::uint64_t idle = fields[3] + (count > 4 ? fields[4] : 0);
              cpu_now[static_cast<std::size_t>(cpu)] = CpuTimes{total - idle, total, true};
            }
          }
        }
        if (p[0] != 'c') break;  // the cpu lines come first; stop at "intr"
        p = eol + 1;
      }
    }
    for (std::size_t k = 0; k < cpus.size(); ++k) {
      const auto cpu = static_cast<std::size_t>(cpus[k]);
      const CpuTimes& now = cpu_now[cpu];
      CpuTimes& prev = cpu_prev[cpu];
      // An offline core has no line: absent, not 0 %. The first sample has no interval yet.
      if (now.present && prev.present) {
        if (now.total > prev.total) {
          const double util =
              100.0 * static_cast<double>(now.busy - prev.busy) / static_cast<double>(now.total - prev.total);
          set_value(values, cpu_fields[k], util);
          cpu_last_util[k] = util;
          prev = now;
        } else if (cpu_last_util[k] >= 0) {
          // No tick elapsed (sampling faster than USER_HZ): the last figure still stands.
          set_value(values, cpu_fields[k], cpu_last_util[k], field_flags::kRepeated);
        }
      } else {
        prev = now;
        cpu_last_util[k] = -1;
      }
    }
  }
}

// Sub-rate: memory in use (MemTotal - MemAvailable) from /proc/meminfo.
void TelemetrySampler::Source::read_memory(std::vector<FieldValue>& values) {
  if (mem_field) {
    const ssize_t n = meminfo.read(big_buffer.data(), big_buffer.size());
    if (n > 0) {
      const std::string_view text(big_buffer.data(), static_cast<std::size_t>(n));
      auto value_of = [&](std::string_view key) -> std::optional<std::int64_t> {
        const std::size_t at = text.find(key);
        if (at == std::string_view::npos) return std::nullopt;
        const char* p = text.data() + at + key.size();
        const char* end = text.data() + text.size();
        while (p < end && *p == ' ') ++p;
        std::int64_t v = 0;
        if (std::from_chars(p, end, v).ec != std::errc()) return std::nullopt;
        return v;
      };
      const auto total = value_of("MemTotal:");
      const auto available = value_of("MemAvailable:");
      if (total && available) set_value(values, *mem_field, static_cast<double>(*total - *available));
    }
  }
}

void TelemetrySampler::read_into(TelemetrySample& sample, std::int64_t t_ns) {
  auto& src = *source_;
  auto& values = sample.values;
  for (auto& v : values) v.flags = 0;
  src.injected.refresh();
  // Due a little early (1 % of the period), so that a sample a few microseconds before the mark
  // does not push the read a whole sampling period later.
  const bool slow_due = t_ns - src.slow_read_ns >= src.slow_period_ns - src.slow_period_ns / 100;

  src.read_rails(values, t_ns);
  src.read_energy_counters(values, t_ns);
  src.read_nvml_power(values, t_ns);
  if (!slow_due) {
    for (std::size_t k = 0; k < src.slow_fields.size(); ++k) {
      FieldValue carried = src.slow_last[k];
      if (carried.valid()) carried.flags |= field_flags::kCarried;
      values[src.slow_fields[k]] = carried;
    }
    sample.sub_rate_time_ns = src.slow_read_ns;
    return;
  }
  src.read_scalars(values);
  src.read_nvml_sub_rate(values);
  src.read_emc_utilisation(values);
  src.read_cpu_load(values);
  src.read_memory(values);
  src.slow_read_ns = t_ns;
  sample.sub_rate_time_ns = t_ns;
  for (std::size_t k = 0; k < src.slow_fields.size(); ++k) src.slow_last[k] = values[src.slow_fields[k]];
}

void TelemetrySampler::run() {
  // The default 50 µs timer slack lets the kernel coalesce our wake-ups; at 1 kHz that slack is
  // most of the jitter budget, so ask for exact expiry.
  ::prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  const auto period_ns = static_cast<std::int64_t>(1e9 / options_.rate_hz);
  // Each clock read is a syscall or a slow vDSO call on some VMs: per sample there are two
  // monotonic reads (start and end of reading) and one thread-CPU read, nothing else.
  std::int64_t cpu_last = thread_cpu_ns();
  const std::int64_t cpu_start = cpu_last;
  const std::int64_t start = monotonic_ns();
  std::int64_t deadline = start + period_ns;
  constexpr std::int64_t kMaxSleepNs = 50'000'000;  // wake at least every 50 ms to notice stop()
  while (running_.load(std::memory_order_relaxed)) {
    if (period_ns <= kMaxSleepNs) {
      // One absolute sleep per sample; an early return (a signal) sleeps again to the same mark.
      const timespec ts{static_cast<time_t>(deadline / 1'000'000'000), static_cast<long>(deadline % 1'000'000'000)};
      while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR &&
             running_.load(std::memory_order_relaxed)) {
      }
    } else {
      // Slow rates sleep to the absolute deadline in slices, so stop() is prompt even at 1 Hz.
      std::int64_t now = monotonic_ns();
      while (now < deadline && running_.load(std::memory_order_relaxed)) {
        const std::int64_t until = std::min(deadline, now + kMaxSleepNs);
        const timespec ts{static_cast<time_t>(until / 1'000'000'000), static_cast<long>(until % 1'000'000'000)};
        ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
        now = monotonic_ns();
      }
    }
    if (!running_.load(std::memory_order_relaxed)) break;

    const std::uint64_t head = head_.load(std::memory_order_relaxed);
    const std::uint64_t tail = tail_.load(std::memory_order_acquire);
    const std::int64_t t = monotonic_ns();
    std::int64_t after = t;
    if (head - tail < ring_.size()) {
      TelemetrySample& slot = ring_[head % ring_.size()];
      read_into(slot, t);
      after = monotonic_ns();
      const std::int64_t cpu = thread_cpu_ns();
      slot.time_ns = t;
      slot.lateness_ns = t - deadline;
      slot.read_ns = after - t;
      // This sample's whole cost: the wake-up that led to it and its reads.
      slot.cpu_ns = cpu - cpu_last;
      cpu_last = cpu;
      thread_cpu_ns_.store(cpu - cpu_start, std::memory_order_relaxed);
      read_wall_ns_.fetch_add(slot.read_ns, std::memory_order_relaxed);
      head_.store(head + 1, std::memory_order_release);
      samples_.fetch_add(1, std::memory_order_relaxed);
    } else {
      dropped_.fetch_add(1, std::memory_order_relaxed);
    }
    deadline += period_ns;
    // An overrun (a slow read, the thread descheduled) skips the deadlines already past instead
    // of firing a burst of samples: the grid stays on start + k × period.
    if (after > deadline) {
      const std::int64_t skipped = (after - deadline) / period_ns + 1;
      missed_.fetch_add(static_cast<std::uint64_t>(skipped), std::memory_order_relaxed);
      deadline += skipped * period_ns;
    }
    elapsed_ns_.store(after - start, std::memory_order_relaxed);
  }
}

void TelemetrySampler::start() {
  if (running_.exchange(true)) return;
  thread_ = std::thread([this] { run(); });
  if (options_.realtime_priority > 0) {
    sched_param param{};
    param.sched_priority = std::clamp(options_.realtime_priority, 1, 99);
    const int error = ::pthread_setschedparam(thread_.native_handle(), SCHED_FIFO, &param);
    if (error != 0) {
      notes_.push_back(fmt::format("realtime priority {} refused ({}); sampling with the normal scheduler",
                                   param.sched_priority, std::strerror(error)));
    }
  }
}

void TelemetrySampler::stop() {
  if (!running_.exchange(false)) return;
  if (thread_.joinable()) thread_.join();
}

std::size_t TelemetrySampler::drain(std::vector<TelemetrySample>& out) {
  const std::uint64_t head = head_.load(std::memory_order_acquire);
  std::uint64_t tail = tail_.load(std::memory_order_relaxed);
  const std::size_t n = static_cast<std::size_t>(head - tail);
  for (; tail < head; ++tail) out.push_back(ring_[tail % ring_.size()]);
  tail_.store(tail, std::memory_order_release);
  return n;
}

TelemetrySample TelemetrySampler::sample_now() {
  if (running_.load()) throw std::logic_error("TelemetrySampler::sample_now while the sampler thread runs");
  TelemetrySample sample;
  sample.values.resize(layout_.fields.size());
  const std::int64_t cpu0 = thread_cpu_ns();
  const std::int64_t t = monotonic_ns();
  read_into(sample, t);
  sample.time_ns = t;
  sample.read_ns = monotonic_ns() - t;
  sample.cpu_ns = thread_cpu_ns() - cpu0;
  return sample;
}

SamplerStats TelemetrySampler::stats() const {
  SamplerStats stats;
  stats.samples = samples_.load();
  stats.dropped = dropped_.load();
  stats.missed_deadlines = missed_.load();
  stats.read_wall_ns = read_wall_ns_.load();
  stats.thread_cpu_ns = thread_cpu_ns_.load();
  stats.elapsed_ns = elapsed_ns_.load();
  return stats;
}

}  // namespace jetchar::jetson
