#include "jetson/nvml/nvml_library.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>

namespace jetchar::jetson {

using namespace nvml_abi;

std::string_view nvml_return_name(nvmlReturn_t code) {
  switch (code) {
    case NVML_SUCCESS: return "NVML_SUCCESS";
    case NVML_ERROR_UNINITIALIZED: return "NVML_ERROR_UNINITIALIZED";
    case NVML_ERROR_INVALID_ARGUMENT: return "NVML_ERROR_INVALID_ARGUMENT";
    case NVML_ERROR_NOT_SUPPORTED: return "NVML_ERROR_NOT_SUPPORTED";
    case NVML_ERROR_NO_PERMISSION: return "NVML_ERROR_NO_PERMISSION";
    case NVML_ERROR_NOT_FOUND: return "NVML_ERROR_NOT_FOUND";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "NVML_ERROR_INSUFFICIENT_SIZE";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "NVML_ERROR_DRIVER_NOT_LOADED";
    case NVML_ERROR_LIBRARY_NOT_FOUND: return "NVML_ERROR_LIBRARY_NOT_FOUND";
    case NVML_ERROR_FUNCTION_NOT_FOUND: return "NVML_ERROR_FUNCTION_NOT_FOUND";
    case NVML_ERROR_GPU_IS_LOST: return "NVML_ERROR_GPU_IS_LOST";
    case NVML_ERROR_UNKNOWN: return "NVML_ERROR_UNKNOWN";
    default: return "NVML error";
  }
}

std::string NvmlLibrary::library_path(const std::optional<std::string>& path) {
  if (path && !path->empty()) return *path;
  if (const char* env = std::getenv(kNvmlLibraryEnv); env != nullptr && *env != '\0') return env;
  return kNvmlDefaultLibrary;
}

NvmlLibrary::Opened NvmlLibrary::open(const std::optional<std::string>& path) {
  Opened opened;
  opened.path = library_path(path);
  // RTLD_LOCAL: NVML's symbols stay out of the global namespace (nothing else should bind to them).
  void* handle = ::dlopen(opened.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = ::dlerror();
    opened.absent = fmt::format("NVML library {} cannot be loaded: {}", opened.path, error ? error : "unknown error");
    return opened;
  }
  std::shared_ptr<NvmlLibrary> library(new NvmlLibrary());
  library->handle_ = handle;
  library->path_ = opened.path;
  auto& fn = library->fn_;
  auto bind = [&](auto& slot, const char* symbol) {
    ::dlerror();
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(::dlsym(handle, symbol));
  };
  bind(fn.init, "nvmlInit_v2");
  bind(fn.shutdown, "nvmlShutdown");
  bind(fn.error_string, "nvmlErrorString");
  bind(fn.driver_version, "nvmlSystemGetDriverVersion");
  bind(fn.count, "nvmlDeviceGetCount_v2");
  bind(fn.handle_by_index, "nvmlDeviceGetHandleByIndex_v2");
  bind(fn.handle_by_uuid, "nvmlDeviceGetHandleByUUID");
  bind(fn.name, "nvmlDeviceGetName");
  bind(fn.uuid, "nvmlDeviceGetUUID");
  bind(fn.power_usage, "nvmlDeviceGetPowerUsage");
  bind(fn.total_energy, "nvmlDeviceGetTotalEnergyConsumption");
  bind(fn.clock_info, "nvmlDeviceGetClockInfo");
  bind(fn.temperature, "nvmlDeviceGetTemperature");
  bind(fn.utilization, "nvmlDeviceGetUtilizationRates");
  bind(fn.memory, "nvmlDeviceGetMemoryInfo");
  bind(fn.power_limit, "nvmlDeviceGetPowerManagementLimit");
  bind(fn.default_power_limit, "nvmlDeviceGetPowerManagementDefaultLimit");
  bind(fn.enforced_power_limit, "nvmlDeviceGetEnforcedPowerLimit");
  bind(fn.power_limit_constraints, "nvmlDeviceGetPowerManagementLimitConstraints");
  // r535 renamed the throttle reasons to clock event reasons (same bits); older drivers have only the old name.
  bind(fn.clock_event_reasons, "nvmlDeviceGetCurrentClocksEventReasons");
  if (fn.clock_event_reasons == nullptr) bind(fn.clock_event_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
  bind(fn.supported_memory_clocks, "nvmlDeviceGetSupportedMemoryClocks");
  bind(fn.supported_graphics_clocks, "nvmlDeviceGetSupportedGraphicsClocks");
  bind(fn.set_power_limit, "nvmlDeviceSetPowerManagementLimit");
  bind(fn.set_gpu_locked_clocks, "nvmlDeviceSetGpuLockedClocks");
  bind(fn.reset_gpu_locked_clocks, "nvmlDeviceResetGpuLockedClocks");
  bind(fn.set_memory_locked_clocks, "nvmlDeviceSetMemoryLockedClocks");
  bind(fn.reset_memory_locked_clocks, "nvmlDeviceResetMemoryLockedClocks");
  bind(fn.field_values, "nvmlDeviceGetFieldValues");

  const char* required[] = {"nvmlInit_v2", "nvmlShutdown", "nvmlErrorString", "nvmlDeviceGetCount_v2",
                            "nvmlDeviceGetHandleByIndex_v2"};
  const void* bound[] = {reinterpret_cast<const void*>(fn.init), reinterpret_cast<const void*>(fn.shutdown),
                         reinterpret_cast<const void*>(fn.error_string), reinterpret_cast<const void*>(fn.count),
                         reinterpret_cast<const void*>(fn.handle_by_index)};
  for (std::size_t k = 0; k < std::size(required); ++k) {
    if (bound[k] == nullptr) {
      opened.absent =
          fmt::format("NVML library {} has no {} (not NVML, or older than NVML 5.319)", opened.path, required[k]);
      library->fn_.shutdown = nullptr;  // never initialised: the destructor only closes the library
      return opened;
    }
  }
  const nvmlReturn_t code = fn.init();
  if (code != NVML_SUCCESS) {
    opened.absent = fmt::format("nvmlInit_v2 failed: {}", library->describe(code));
    library->fn_.shutdown = nullptr;
    return opened;
  }
  opened.library = std::move(library);
  return opened;
}

NvmlLibrary::~NvmlLibrary() {
  if (fn_.shutdown != nullptr) fn_.shutdown();
  if (handle_ != nullptr) ::dlclose(handle_);
}

std::string NvmlLibrary::describe(nvmlReturn_t code) const {
  const char* text = fn_.error_string != nullptr ? fn_.error_string(code) : nullptr;
  return fmt::format("{} ({}, {})", text != nullptr ? text : "unknown error", nvml_return_name(code), code);
}

template <class T>
NvmlResult<T> NvmlLibrary::failure(std::string_view call, nvmlReturn_t code) const {
  NvmlResult<T> result;
  result.code = code;
  result.error = fmt::format("{}: {}", call, describe(code));
  return result;
}

template <class T>
NvmlResult<T> NvmlLibrary::missing(std::string_view call) const {
  NvmlResult<T> result;
  result.code = NVML_ERROR_FUNCTION_NOT_FOUND;
  result.error = fmt::format("{}: the library {} has no such function (an older driver)", call, path_);
  return result;
}

namespace {

// One call pattern for every getter: missing symbol, failing call, or the value.
template <class T, class Lib, class Call>
NvmlResult<T> call_nvml(const Lib& lib, const void* symbol, std::string_view name, Call&& call,
                        NvmlResult<T> (Lib::*missing)(std::string_view) const,
                        NvmlResult<T> (Lib::*failure)(std::string_view, nvmlReturn_t) const) {
  if (symbol == nullptr) return (lib.*missing)(name);
  T value{};
  const nvmlReturn_t code = call(value);
  if (code != NVML_SUCCESS) return (lib.*failure)(name, code);
  NvmlResult<T> result;
  result.value = std::move(value);
  return result;
}

}  // namespace

#define JETCHAR_NVML_CALL(T, slot, symbol, ...)                                                                     \
  call_nvml<T>(                                                                                                     \
      *this, reinterpret_cast<const void*>(fn_.slot), symbol, [&]([[maybe_unused]] T& out) { return __VA_ARGS__; }, \
      &NvmlLibrary::missing<T>, &NvmlLibrary::failure<T>)

NvmlResult<std::string> NvmlLibrary::driver_version() const {
  char buffer[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = {};
  auto result = JETCHAR_NVML_CALL(std::string, driver_version, "nvmlSystemGetDriverVersion",
                                  fn_.driver_version(buffer, sizeof buffer));
  if (result.value) result.value = std::string(buffer);
  return result;
}

NvmlResult<unsigned int> NvmlLibrary::device_count() const {
  return JETCHAR_NVML_CALL(unsigned int, count, "nvmlDeviceGetCount_v2", fn_.count(&out));
}

NvmlResult<nvmlDevice_t> NvmlLibrary::handle(unsigned int index) const {
  return JETCHAR_NVML_CALL(nvmlDevice_t, handle_by_index, "nvmlDeviceGetHandleByIndex_v2",
                           fn_.handle_by_index(index, &out));
}

NvmlResult<nvmlDevice_t> NvmlLibrary::handle_by_uuid(const std::string& uuid) const {
  return JETCHAR_NVML_CALL(nvmlDevice_t, handle_by_uuid, "nvmlDeviceGetHandleByUUID",
                           fn_.handle_by_uuid(uuid.c_str(), &out));
}

NvmlResult<std::string> NvmlLibrary::name(nvmlDevice_t device) const {
  char buffer[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {};
  auto result = JETCHAR_NVML_CALL(std::string, name, "nvmlDeviceGetName", fn_.name(device, buffer, sizeof buffer));
  if (result.value) result.value = std::string(buffer);
  return result;
}

NvmlResult<std::string> NvmlLibrary::uuid(nvmlDevice_t device) const {
  char buffer[NVML_DEVICE_UUID_BUFFER_SIZE] = {};
  auto result = JETCHAR_NVML_CALL(std::string, uuid, "nvmlDeviceGetUUID", fn_.uuid(device, buffer, sizeof buffer));
  if (result.value) result.value = std::string(buffer);
  return result;
}

NvmlResult<unsigned int> NvmlLibrary::power_usage_mw(nvmlDevice_t device) const {
  return JETCHAR_NVML_CALL(unsigned int, power_usage, "nvmlDeviceGetPowerUsage", fn_.power_usage(device, &out));
}

NvmlResult<unsigned long long> NvmlLibrary::total_energy_mj(nvmlDevice_t device) const {
  return JETCHAR_NVML_CALL(unsigned long long, total_energy, "nvmlDeviceGetTotalEnergyConsumption",
                           fn_.total_energy(device, &out));
}

NvmlResult<unsigned int> NvmlLibrary::power_field_mw(nvmlDevice_t device, unsigned int field_id) const {
  nvmlFieldValue_t field{};
  field.fieldId = field_id;
  field.scopeId = NVML_POWER_SCOPE_GPU;
  auto result =
      JETCHAR_NVML_CALL(unsigned int, field_values, "nvmlDeviceGetFieldValues", fn_.field_values(device, 1, &field));
  if (!result.ok()) return result;
  const std::string call = fmt::format("nvmlDeviceGetFieldValues (field {})", field_id);
  if (field.nvmlReturn != NVML_SUCCESS) return failure<unsigned int>(call, field.nvmlReturn);
  // nvml.h documents these fields in mW as unsigned int; take the integer types a driver may use.
  switch (field.valueType) {
    case NVML_VALUE_TYPE_UNSIGNED_INT: result.value = field.value.uiVal; break;
    case NVML_VALUE_TYPE_UNSIGNED_LONG: result.value = static_cast<unsigned int>(field.value.ulVal); break;
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: result.value = static_cast<unsigned int>(field.value.ullVal); break;
    default:
      result.value.reset();
      result.code = NVML_ERROR_UNKNOWN;
      result.error = fmt::format("{}: value of type {}, not an unsigned integer in mW", call, field.valueType);
  }
  return result;
}

NvmlResult<unsigned int> NvmlLibrary::clock_mhz(nvmlDevice_t device, nvmlClockType_t type) const {
  return JETCHAR_NVML_CALL(unsigned int, clock_info, "nvmlDeviceGetClockInfo", fn_.clock_info(device, type, &out));
}

NvmlResult<unsigned int> NvmlLibrary::temperature_c(nvmlDevice_t device) const {
  return JETCHAR_NVML_CALL(unsigned int, temperature, "nvmlDeviceGetTemperature",
                           fn_.temperature(device, NVML_TEMPERATURE_GPU, &out));
}

NvmlResult<nvmlUtilization_t> NvmlLibrary::utilization(nvmlDevice_t device) const {
  return JETCHAR_NVML_CALL(nvmlUtilization_t, utilization, "nvmlDeviceGetUtilizationRates",
                           fn_.utilization(device, &out));
}

NvmlResult<nvmlMemory_t> NvmlLibrary::memory(nvmlDevice_t device) const {
  return JETCHAR_NVML_CALL(nvmlMemory_t, memory, "nvmlDeviceGetMemoryInfo", fn_.memory(device, &out));
}

NvmlResult<unsigned int> NvmlLibrary::power_limit_mw(nvmlDevice_t device) const {
  return JETCHAR_NVML_CALL(unsigned int, power_limit, "nvmlDeviceGetPowerManagementLimit",
                           fn_.power_limit(device, &out));
}

NvmlResult<unsigned int> NvmlLibrary::default_power_limit_mw(nvmlDevice_t device) const {
  return JETCHAR_NVML_CALL(unsigned int, default_power_limit, "nvmlDeviceGetPowerManagementDefaultLimit",
                           fn_.default_power_limit(device, &out));
}

NvmlResult<unsigned int> NvmlLibrary::enforced_power_limit_mw(nvmlDevice_t device) const {
  return JETCHAR_NVML_CALL(unsigned int, enforced_power_limit, "nvmlDeviceGetEnforcedPowerLimit",
                           fn_.enforced_power_limit(device, &out));
}

NvmlResult<std::pair<unsigned int, unsigned int>> NvmlLibrary::power_limit_constraints_mw(nvmlDevice_t device) const {
  using Range = std::pair<unsigned int, unsigned int>;
  return JETCHAR_NVML_CALL(Range, power_limit_constraints, "nvmlDeviceGetPowerManagementLimitConstraints",
                           fn_.power_limit_constraints(device, &out.first, &out.second));
}

NvmlResult<unsigned long long> NvmlLibrary::clock_event_reasons(nvmlDevice_t device) const {
  return JETCHAR_NVML_CALL(unsigned long long, clock_event_reasons, "nvmlDeviceGetCurrentClocksEventReasons",
                           fn_.clock_event_reasons(device, &out));
}

namespace {

// NVML's list calls: *count is the buffer's size in, the list's length out;
// NVML_ERROR_INSUFFICIENT_SIZE with the needed count when the buffer is too small.
template <class Call>
nvmlReturn_t read_list(std::vector<unsigned int>& out, Call&& call) {
  unsigned int count = 256;
  out.assign(count, 0);
  nvmlReturn_t code = call(&count, out.data());
  if (code == NVML_ERROR_INSUFFICIENT_SIZE && count > out.size()) {
    out.assign(count, 0);
    code = call(&count, out.data());
  }
  if (code == NVML_SUCCESS) out.resize(std::min<std::size_t>(count, out.size()));
  return code;
}

}  // namespace

NvmlResult<std::vector<unsigned int>> NvmlLibrary::supported_memory_clocks_mhz(nvmlDevice_t device) const {
  using List = std::vector<unsigned int>;
  return JETCHAR_NVML_CALL(List, supported_memory_clocks, "nvmlDeviceGetSupportedMemoryClocks",
                           read_list(out, [&](unsigned int* count, unsigned int* clocks) {
                             return fn_.supported_memory_clocks(device, count, clocks);
                           }));
}

NvmlResult<std::vector<unsigned int>> NvmlLibrary::supported_graphics_clocks_mhz(nvmlDevice_t device,
                                                                                 unsigned int memory_mhz) const {
  using List = std::vector<unsigned int>;
  return JETCHAR_NVML_CALL(List, supported_graphics_clocks, "nvmlDeviceGetSupportedGraphicsClocks",
                           read_list(out, [&](unsigned int* count, unsigned int* clocks) {
                             return fn_.supported_graphics_clocks(device, memory_mhz, count, clocks);
                           }));
}

NvmlResult<bool> NvmlLibrary::set_power_limit_mw(nvmlDevice_t device, unsigned int limit_mw) const {
  return JETCHAR_NVML_CALL(bool, set_power_limit, "nvmlDeviceSetPowerManagementLimit",
                           (out = true, fn_.set_power_limit(device, limit_mw)));
}

NvmlResult<bool> NvmlLibrary::set_gpu_locked_clocks(nvmlDevice_t device, NvmlClockRange range) const {
  return JETCHAR_NVML_CALL(bool, set_gpu_locked_clocks, "nvmlDeviceSetGpuLockedClocks",
                           (out = true, fn_.set_gpu_locked_clocks(device, range.min_mhz, range.max_mhz)));
}

NvmlResult<bool> NvmlLibrary::reset_gpu_locked_clocks(nvmlDevice_t device) const {
  return JETCHAR_NVML_CALL(bool, reset_gpu_locked_clocks, "nvmlDeviceResetGpuLockedClocks",
                           (out = true, fn_.reset_gpu_locked_clocks(device)));
}

NvmlResult<bool> NvmlLibrary::set_memory_locked_clocks(nvmlDevice_t device, NvmlClockRange range) const {
  return JETCHAR_NVML_CALL(bool, set_memory_locked_clocks, "nvmlDeviceSetMemoryLockedClocks",
                           (out = true, fn_.set_memory_locked_clocks(device, range.min_mhz, range.max_mhz)));
}

NvmlResult<bool> NvmlLibrary::reset_memory_locked_clocks(nvmlDevice_t device) const {
  return JETCHAR_NVML_CALL(bool, reset_memory_locked_clocks, "nvmlDeviceResetMemoryLockedClocks",
                           (out = true, fn_.reset_memory_locked_clocks(device)));
}

#undef JETCHAR_NVML_CALL

}  // namespace jetchar::jetson
