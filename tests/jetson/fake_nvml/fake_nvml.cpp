// A simulated NVML for tests on machines without an NVIDIA GPU: a shared library exporting the
// NVML entry points jetchar looks up (jetson/nvml/nvml_library.cpp), with the signatures, return
// codes, units and list-call conventions of NVIDIA's nvml.h (the facts jetson/nvml/nvml_abi.h
// cites). jetchar opens it through the same dlopen path as libnvidia-ml.so.1
// (JETCHAR_NVML_LIBRARY=<this file>).
//
// The simulated GPU (every figure is this model's, not a real card's):
// - power: 30 W idle + 290 W × load at the top graphics clock, × clock / 1695 MHz at a lower one;
//   above the power limit the clock drops until the power meets the limit (reason sw_power_cap);
// - the energy counter (mJ) integrates that power over CLOCK_MONOTONIC in each process;
// - nvmlDeviceGetFieldValues: NVML_FI_DEV_POWER_INSTANT is that power now, NVML_FI_DEV_POWER_AVERAGE
//   the counter's rate over the last second the process has seen (GPU scope only; any other field or
//   scope is NotSupported in its own nvmlReturn, as nvml.h has a driver answer fields it lacks);
// - power limit constraints 100..350 W, default 350 W; memory clocks 9751/5001/810/405 MHz,
//   graphics clocks 210..1695 MHz in 15 MHz steps; locked clocks clamp the clock;
// - utilisation = load; 35 °C + 0.4 °C per % of load; 24 GiB of memory, 1 GiB + 0.2 GiB per 10 %
//   of load used.
//
// Environment:
// - JETCHAR_FAKE_NVML_STATE: a file keeping the state between processes (a restore in another
//   process sees what the previous one set). Lines "gpuN.key value": load_pct, power_limit_mw,
//   gpu_locked (min max, 0 0 = not locked), mem_locked. Tests write load_pct into it.
// - JETCHAR_FAKE_NVML_GPUS: how many GPUs (default 1).
// - JETCHAR_FAKE_NVML_PROFILE=jetson: the queries a Jetson's NVML refuses (power, energy, power
//   limits, locked clocks, clock tables, event reasons: NotSupported on Orin, whose power comes
//   from its INA rails instead) return NVML_ERROR_NOT_SUPPORTED.
// - JETCHAR_FAKE_NVML_NON_ROOT=1: every Set/Reset returns NVML_ERROR_NO_PERMISSION, as for a
//   caller without root.
// - JETCHAR_FAKE_NVML_NO_DRIVER=1: nvmlInit_v2 returns NVML_ERROR_DRIVER_NOT_LOADED.
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "jetson/nvml/nvml_abi.h"

using namespace jetchar::jetson::nvml_abi;

// The opaque device NVML hands out; what it holds is the implementation's business.
struct jetchar::jetson::nvml_abi::nvmlDevice_st {
  unsigned int index;
};

namespace {

constexpr unsigned int kMaxGpus = 8;
constexpr double kIdleMw = 30'000.0;
constexpr double kDynamicMw = 290'000.0;
constexpr unsigned int kTopClockMhz = 1695;
constexpr unsigned int kMinGraphicsMhz = 210;
constexpr unsigned int kMinLimitMw = 100'000, kMaxLimitMw = 350'000, kDefaultLimitMw = 350'000;
constexpr unsigned int kMemoryClocks[] = {9751, 5001, 810, 405};
constexpr unsigned long long kMemoryTotal = 24ULL << 30;

struct GpuState {
  double load_pct = 0;
  unsigned int power_limit_mw = kDefaultLimitMw;
  unsigned int gpu_locked_min = 0, gpu_locked_max = 0;
  unsigned int mem_locked_min = 0, mem_locked_max = 0;
};

struct Model {
  std::mutex mutex;
  int init_count = 0;
  unsigned int gpus = 1;
  nvmlDevice_st devices[kMaxGpus] = {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}};
  GpuState state[kMaxGpus];
  double energy_mj[kMaxGpus] = {};
  long long last_ns = 0;
  std::deque<std::pair<long long, double>> energy_history[kMaxGpus];  ///< (ns, mJ), the last second and one before
};

Model& model() {
  static Model m;
  return m;
}

long long now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1'000'000'000LL + ts.tv_nsec;
}

const char* env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

struct Operating {
  double power_mw;
  unsigned int graphics_mhz;
  unsigned int memory_mhz;
  bool capped;
};

Operating operating_point(const GpuState& s) {
  const double load = std::clamp(s.load_pct, 0.0, 100.0) / 100.0;
  unsigned int clock = load > 0 ? kTopClockMhz : kMinGraphicsMhz;
  if (s.gpu_locked_max != 0) clock = std::clamp(clock, s.gpu_locked_min, s.gpu_locked_max);
  auto power_at = [&](double mhz) { return kIdleMw + kDynamicMw * load * mhz / kTopClockMhz; };
  double power = power_at(clock);
  bool capped = false;
  if (power > s.power_limit_mw) {
    // The clock the limit allows, not below the lock's floor (then the limit is exceeded, as a lock can).
    const double allowed = (s.power_limit_mw - kIdleMw) / (kDynamicMw * load) * kTopClockMhz;
    const unsigned int floor = s.gpu_locked_max != 0 ? s.gpu_locked_min : kMinGraphicsMhz;
    clock = std::max(floor, static_cast<unsigned int>(allowed));
    power = power_at(clock);
    capped = true;
  }
  unsigned int memory = kMemoryClocks[0];
  if (s.mem_locked_max != 0) memory = std::clamp(memory, s.mem_locked_min, s.mem_locked_max);
  return {power, clock, memory, capped};
}

void load_state(Model& m) {
  const char* path = env("JETCHAR_FAKE_NVML_STATE");
  if (path == nullptr) return;
  // The file is the whole state: what it does not say is the driver's default.
  for (auto& s : m.state) s = GpuState{};
  std::ifstream in(path);
  std::string key;
  while (in >> key) {
    unsigned int gpu = 0;
    char field[64] = {};
    if (std::sscanf(key.c_str(), "gpu%u.%63s", &gpu, field) != 2 || gpu >= kMaxGpus) {
      std::string rest;
      std::getline(in, rest);
      continue;
    }
    GpuState& s = m.state[gpu];
    const std::string f = field;
    if (f == "load_pct") in >> s.load_pct;
    else if (f == "power_limit_mw") in >> s.power_limit_mw;
    else if (f == "gpu_locked") in >> s.gpu_locked_min >> s.gpu_locked_max;
    else if (f == "mem_locked") in >> s.mem_locked_min >> s.mem_locked_max;
    else {
      std::string rest;
      std::getline(in, rest);
    }
  }
}

void save_state(const Model& m) {
  const char* path = env("JETCHAR_FAKE_NVML_STATE");
  if (path == nullptr) return;
  std::ostringstream out;
  for (unsigned int g = 0; g < m.gpus; ++g) {
    const GpuState& s = m.state[g];
    out << "gpu" << g << ".load_pct " << s.load_pct << "\n"
        << "gpu" << g << ".power_limit_mw " << s.power_limit_mw << "\n"
        << "gpu" << g << ".gpu_locked " << s.gpu_locked_min << " " << s.gpu_locked_max << "\n"
        << "gpu" << g << ".mem_locked " << s.mem_locked_min << " " << s.mem_locked_max << "\n";
  }
  // Whole or absent: written beside and renamed over, as a crash must not leave half a state.
  const std::string temporary = std::string(path) + ".tmp";
  {
    std::ofstream file(temporary, std::ios::trunc);
    file << out.str();
  }
  std::rename(temporary.c_str(), path);
}

// Advances the energy counters with the power of the state in effect since the last call, then
// picks up the state file (a test may have changed the load).
void advance(Model& m) {
  const long long now = now_ns();
  if (m.last_ns != 0 && now > m.last_ns) {
    for (unsigned int g = 0; g < m.gpus; ++g) {
      m.energy_mj[g] += operating_point(m.state[g]).power_mw * static_cast<double>(now - m.last_ns) / 1e9;
    }
  }
  for (unsigned int g = 0; g < m.gpus; ++g) {
    auto& history = m.energy_history[g];
    history.emplace_back(now, m.energy_mj[g]);
    while (history.size() > 2 && history[1].first <= now - 1'000'000'000LL) history.pop_front();
  }
  m.last_ns = now;
  load_state(m);
}

// Common entry: initialised, a valid handle, the model advanced.
nvmlReturn_t enter(nvmlDevice_t device, GpuState** state) {
  Model& m = model();
  if (m.init_count <= 0) return NVML_ERROR_UNINITIALIZED;
  if (device == nullptr || device->index >= m.gpus || device != &m.devices[device->index]) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  advance(m);
  *state = &m.state[device->index];
  return NVML_SUCCESS;
}

#define FAKE_ENTER(device)                         \
  std::lock_guard<std::mutex> lock(model().mutex); \
  GpuState* s = nullptr;                           \
  if (nvmlReturn_t rc = enter(device, &s); rc != NVML_SUCCESS) return rc

// Read at every call: a process keeps NVML initialised across tests that switch profiles.
bool jetson_profile() {
  const char* profile = env("JETCHAR_FAKE_NVML_PROFILE");
  return profile != nullptr && std::string(profile) == "jetson";
}

#define FAKE_JETSON_REFUSES() \
  if (jetson_profile()) return NVML_ERROR_NOT_SUPPORTED

#define FAKE_NEEDS_ROOT() \
  if (env("JETCHAR_FAKE_NVML_NON_ROOT") != nullptr) return NVML_ERROR_NO_PERMISSION

bool in_table(unsigned int mhz, bool graphics) {
  if (graphics) return mhz >= kMinGraphicsMhz && mhz <= kTopClockMhz && (mhz - kMinGraphicsMhz) % 15 == 0;
  return std::find(std::begin(kMemoryClocks), std::end(kMemoryClocks), mhz) != std::end(kMemoryClocks);
}

nvmlReturn_t copy_text(const std::string& text, char* buffer, unsigned int length) {
  if (buffer == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (text.size() + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(buffer, text.c_str(), text.size() + 1);
  return NVML_SUCCESS;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) nvmlReturn_t nvmlInit_v2() {
  std::lock_guard<std::mutex> lock(model().mutex);
  if (env("JETCHAR_FAKE_NVML_NO_DRIVER") != nullptr) return NVML_ERROR_DRIVER_NOT_LOADED;
  Model& m = model();
  const char* gpus = env("JETCHAR_FAKE_NVML_GPUS");
  m.gpus = gpus != nullptr ? std::clamp<unsigned int>(std::atoi(gpus), 1, kMaxGpus) : 1;
  if (m.init_count++ == 0) {
    load_state(m);
    m.last_ns = now_ns();
    // Each process's counter starts where a driver loaded a while ago would be: any value; 1 kJ.
    for (auto& e : m.energy_mj) e = 1'000'000.0;
  }
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlShutdown() {
  std::lock_guard<std::mutex> lock(model().mutex);
  if (model().init_count <= 0) return NVML_ERROR_UNINITIALIZED;
  --model().init_count;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) const char* nvmlErrorString(nvmlReturn_t result) {
  switch (result) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    default: return "Unknown Error";
  }
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  if (model().init_count <= 0) return NVML_ERROR_UNINITIALIZED;
  return copy_text("fake-nvml 1.0", version, length);
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  std::lock_guard<std::mutex> lock(model().mutex);
  if (model().init_count <= 0) return NVML_ERROR_UNINITIALIZED;
  if (count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *count = model().gpus;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index,
                                                                                  nvmlDevice_t* device) {
  std::lock_guard<std::mutex> lock(model().mutex);
  if (model().init_count <= 0) return NVML_ERROR_UNINITIALIZED;
  if (device == nullptr || index >= model().gpus) return NVML_ERROR_INVALID_ARGUMENT;
  *device = &model().devices[index];
  return NVML_SUCCESS;
}

static std::string uuid_of(unsigned int index) {
  char text[64];
  std::snprintf(text, sizeof text, "GPU-5f8e1c2a-0000-4000-8000-%012u", index);
  return text;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetHandleByUUID(const char* uuid, nvmlDevice_t* device) {
  std::lock_guard<std::mutex> lock(model().mutex);
  if (model().init_count <= 0) return NVML_ERROR_UNINITIALIZED;
  if (uuid == nullptr || device == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  for (unsigned int g = 0; g < model().gpus; ++g) {
    if (uuid_of(g) == uuid) {
      *device = &model().devices[g];
      return NVML_SUCCESS;
    }
  }
  return NVML_ERROR_NOT_FOUND;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name,
                                                                      unsigned int length) {
  FAKE_ENTER(device);
  return copy_text(jetson_profile() ? "jetchar simulated Jetson GPU" : "jetchar simulated GPU", name, length);
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid,
                                                                      unsigned int length) {
  FAKE_ENTER(device);
  return copy_text(uuid_of(device->index), uuid, length);
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int* power) {
  FAKE_ENTER(device);
  FAKE_JETSON_REFUSES();
  if (power == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *power = static_cast<unsigned int>(operating_point(*s).power_mw);
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device,
                                                                                        unsigned long long* energy) {
  FAKE_ENTER(device);
  FAKE_JETSON_REFUSES();
  if (energy == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *energy = static_cast<unsigned long long>(model().energy_mj[device->index]);
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type,
                                                                           unsigned int* clock) {
  FAKE_ENTER(device);
  if (clock == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  const Operating op = operating_point(*s);
  if (type == NVML_CLOCK_GRAPHICS || type == NVML_CLOCK_SM) *clock = op.graphics_mhz;
  else if (type == NVML_CLOCK_MEM) *clock = op.memory_mhz;
  else return NVML_ERROR_NOT_SUPPORTED;  // the video clock is not modelled
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device,
                                                                             nvmlTemperatureSensors_t sensor,
                                                                             unsigned int* temp) {
  FAKE_ENTER(device);
  if (temp == nullptr || sensor != NVML_TEMPERATURE_GPU) return NVML_ERROR_INVALID_ARGUMENT;
  *temp = static_cast<unsigned int>(35.0 + 0.4 * s->load_pct);
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device,
                                                                                  nvmlUtilization_t* utilization) {
  FAKE_ENTER(device);
  if (utilization == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  utilization->gpu = static_cast<unsigned int>(s->load_pct);
  utilization->memory = static_cast<unsigned int>(s->load_pct / 2);
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) {
  FAKE_ENTER(device);
  if (memory == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  memory->total = kMemoryTotal;
  memory->used = (1ULL << 30) + static_cast<unsigned long long>(s->load_pct / 10.0 * 0.2 * (1ULL << 30));
  memory->free = memory->total - memory->used;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device,
                                                                                      unsigned int* limit) {
  FAKE_ENTER(device);
  FAKE_JETSON_REFUSES();
  if (limit == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *limit = s->power_limit_mw;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device,
                                                                                    unsigned int* limit) {
  return nvmlDeviceGetPowerManagementLimit(device, limit);
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t device,
                                                                                             unsigned int* limit) {
  FAKE_ENTER(device);
  FAKE_JETSON_REFUSES();
  if (limit == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *limit = kDefaultLimitMw;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetPowerManagementLimitConstraints(
    nvmlDevice_t device, unsigned int* min_limit, unsigned int* max_limit) {
  FAKE_ENTER(device);
  FAKE_JETSON_REFUSES();
  if (min_limit == nullptr || max_limit == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *min_limit = kMinLimitMw;
  *max_limit = kMaxLimitMw;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(
    nvmlDevice_t device, unsigned long long* reasons) {
  FAKE_ENTER(device);
  FAKE_JETSON_REFUSES();
  if (reasons == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  const Operating op = operating_point(*s);
  *reasons = 0;
  if (s->load_pct <= 0) *reasons |= kReasonGpuIdle;
  if (op.capped) *reasons |= kReasonSwPowerCap;
  if (s->gpu_locked_max != 0 || s->mem_locked_max != 0) *reasons |= kReasonApplicationsClocksSetting;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetSupportedMemoryClocks(nvmlDevice_t device,
                                                                                       unsigned int* count,
                                                                                       unsigned int* clocks) {
  FAKE_ENTER(device);
  FAKE_JETSON_REFUSES();
  if (count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  const unsigned int n = std::size(kMemoryClocks);
  if (*count < n || clocks == nullptr) {
    *count = n;
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  std::copy(std::begin(kMemoryClocks), std::end(kMemoryClocks), clocks);
  *count = n;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetSupportedGraphicsClocks(nvmlDevice_t device,
                                                                                         unsigned int memory_mhz,
                                                                                         unsigned int* count,
                                                                                         unsigned int* clocks) {
  FAKE_ENTER(device);
  FAKE_JETSON_REFUSES();
  if (count == nullptr || !in_table(memory_mhz, false)) return NVML_ERROR_INVALID_ARGUMENT;
  std::vector<unsigned int> table;
  for (unsigned int mhz = kTopClockMhz; mhz >= kMinGraphicsMhz; mhz -= 15) table.push_back(mhz);
  if (*count < table.size() || clocks == nullptr) {
    *count = static_cast<unsigned int>(table.size());
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  std::copy(table.begin(), table.end(), clocks);
  *count = static_cast<unsigned int>(table.size());
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceSetPowerManagementLimit(nvmlDevice_t device,
                                                                                      unsigned int limit) {
  FAKE_ENTER(device);
  FAKE_JETSON_REFUSES();
  FAKE_NEEDS_ROOT();
  if (limit < kMinLimitMw || limit > kMaxLimitMw) return NVML_ERROR_INVALID_ARGUMENT;
  s->power_limit_mw = limit;
  save_state(model());
  return NVML_SUCCESS;
}

static nvmlReturn_t lock_clocks(nvmlDevice_t device, unsigned int min_mhz, unsigned int max_mhz, bool graphics,
                                bool reset) {
  FAKE_ENTER(device);
  FAKE_JETSON_REFUSES();
  FAKE_NEEDS_ROOT();
  if (!reset && (min_mhz > max_mhz || !in_table(min_mhz, graphics) || !in_table(max_mhz, graphics))) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  unsigned int& lo = graphics ? s->gpu_locked_min : s->mem_locked_min;
  unsigned int& hi = graphics ? s->gpu_locked_max : s->mem_locked_max;
  lo = reset ? 0 : min_mhz;
  hi = reset ? 0 : max_mhz;
  save_state(model());
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceSetGpuLockedClocks(nvmlDevice_t device,
                                                                                 unsigned int min_mhz,
                                                                                 unsigned int max_mhz) {
  return lock_clocks(device, min_mhz, max_mhz, true, false);
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceResetGpuLockedClocks(nvmlDevice_t device) {
  return lock_clocks(device, 0, 0, true, true);
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceSetMemoryLockedClocks(nvmlDevice_t device,
                                                                                    unsigned int min_mhz,
                                                                                    unsigned int max_mhz) {
  return lock_clocks(device, min_mhz, max_mhz, false, false);
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceResetMemoryLockedClocks(nvmlDevice_t device) {
  return lock_clocks(device, 0, 0, false, true);
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int count,
                                                                             nvmlFieldValue_t* values) {
  FAKE_ENTER(device);
  if (values == nullptr || count < 0) return NVML_ERROR_INVALID_ARGUMENT;
  timespec wall{};
  ::clock_gettime(CLOCK_REALTIME, &wall);
  const auto& history = model().energy_history[device->index];
  for (int k = 0; k < count; ++k) {
    nvmlFieldValue_t& v = values[k];
    v.timestamp = static_cast<long long>(wall.tv_sec) * 1'000'000LL + wall.tv_nsec / 1000;
    v.latencyUsec = 0;
    v.valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
    const bool power_field = v.fieldId == NVML_FI_DEV_POWER_AVERAGE || v.fieldId == NVML_FI_DEV_POWER_INSTANT;
    if (!power_field || v.scopeId != NVML_POWER_SCOPE_GPU || jetson_profile()) {
      v.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
      continue;
    }
    double mw = operating_point(*s).power_mw;
    if (v.fieldId == NVML_FI_DEV_POWER_AVERAGE && history.size() >= 2 && history.back().first > history.front().first) {
      mw = (history.back().second - history.front().second) /
           (static_cast<double>(history.back().first - history.front().first) / 1e9);
    }
    v.value.uiVal = static_cast<unsigned int>(mw);
    v.nvmlReturn = NVML_SUCCESS;
  }
  return NVML_SUCCESS;
}

}  // extern "C"
