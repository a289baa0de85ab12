// NVML (libnvidia-ml) opened at run time with dlopen/dlsym: jetchar has no link-time dependency on
// it, so one binary runs on a Jetson, a desktop with an NVIDIA GPU and a machine without one. An
// absent library, an absent driver or a failing nvmlInit makes NVML absent with the reason (the
// dlerror text, or nvmlErrorString of nvmlInit's code), never a GPU with zeros.
//
// The library is $JETCHAR_NVML_LIBRARY when set (tests point it at a simulated GPU), otherwise
// libnvidia-ml.so.1, the name the NVIDIA driver installs. Symbols a call needs that the library
// lacks (an older driver) make that one query absent ("the library has no nvmlX").
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "jetson/nvml/nvml_abi.h"

namespace jetchar::jetson {

/// The default library name, as the driver installs it.
inline constexpr const char* kNvmlDefaultLibrary = "libnvidia-ml.so.1";
/// Environment variable naming another library file to open instead.
inline constexpr const char* kNvmlLibraryEnv = "JETCHAR_NVML_LIBRARY";

/// The outcome of one NVML call: a value, or why there is none (the call's name and NVML's
/// error string with its code).
template <class T>
struct NvmlResult {
  std::optional<T> value;
  nvml_abi::nvmlReturn_t code = nvml_abi::NVML_SUCCESS;
  std::string error;  ///< empty when value is set
  bool ok() const { return value.has_value(); }
  bool not_supported() const { return code == nvml_abi::NVML_ERROR_NOT_SUPPORTED; }
};

struct NvmlClockRange {
  unsigned int min_mhz = 0;
  unsigned int max_mhz = 0;
};

class NvmlLibrary {
 public:
  struct Functions {
    nvml_abi::InitFn init = nullptr;
    nvml_abi::ShutdownFn shutdown = nullptr;
    nvml_abi::ErrorStringFn error_string = nullptr;
    nvml_abi::SystemGetDriverVersionFn driver_version = nullptr;
    nvml_abi::DeviceGetCountFn count = nullptr;
    nvml_abi::DeviceGetHandleByIndexFn handle_by_index = nullptr;
    nvml_abi::DeviceGetHandleByUuidFn handle_by_uuid = nullptr;
    nvml_abi::DeviceGetTextFn name = nullptr;
    nvml_abi::DeviceGetTextFn uuid = nullptr;
    nvml_abi::DeviceGetUintFn power_usage = nullptr;
    nvml_abi::DeviceGetUllFn total_energy = nullptr;
    nvml_abi::DeviceGetClockInfoFn clock_info = nullptr;
    nvml_abi::DeviceGetTemperatureFn temperature = nullptr;
    nvml_abi::DeviceGetUtilizationRatesFn utilization = nullptr;
    nvml_abi::DeviceGetMemoryInfoFn memory = nullptr;
    nvml_abi::DeviceGetUintFn power_limit = nullptr;
    nvml_abi::DeviceGetUintFn default_power_limit = nullptr;
    nvml_abi::DeviceGetUintFn enforced_power_limit = nullptr;
    nvml_abi::DeviceGetLimitConstraintsFn power_limit_constraints = nullptr;
    nvml_abi::DeviceGetUllFn clock_event_reasons = nullptr;  ///< EventReasons, else ThrottleReasons
    nvml_abi::DeviceGetSupportedMemoryClocksFn supported_memory_clocks = nullptr;
    nvml_abi::DeviceGetSupportedGraphicsClocksFn supported_graphics_clocks = nullptr;
    nvml_abi::DeviceSetUintFn set_power_limit = nullptr;
    nvml_abi::DeviceSetClockRangeFn set_gpu_locked_clocks = nullptr;
    nvml_abi::DeviceResetFn reset_gpu_locked_clocks = nullptr;
    nvml_abi::DeviceSetClockRangeFn set_memory_locked_clocks = nullptr;
    nvml_abi::DeviceResetFn reset_memory_locked_clocks = nullptr;
    nvml_abi::DeviceGetFieldValuesFn field_values = nullptr;
  };

  /// The library file to open: `path` when given, else $JETCHAR_NVML_LIBRARY, else the default.
  static std::string library_path(const std::optional<std::string>& path = std::nullopt);

  struct Opened {
    std::shared_ptr<NvmlLibrary> library;  ///< null when NVML is absent
    std::string path;                      ///< the file asked for
    std::optional<std::string> absent;     ///< why NVML is absent
  };
  /// dlopen, the symbols, nvmlInit_v2. Never throws for an absent library or driver.
  static Opened open(const std::optional<std::string>& path = std::nullopt);

  ~NvmlLibrary();  ///< nvmlShutdown, dlclose
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  const Functions& functions() const { return fn_; }
  const std::string& path() const { return path_; }
  /// "Not Supported (NVML_ERROR_NOT_SUPPORTED, 3)".
  std::string describe(nvml_abi::nvmlReturn_t code) const;

  NvmlResult<std::string> driver_version() const;
  NvmlResult<unsigned int> device_count() const;
  NvmlResult<nvml_abi::nvmlDevice_t> handle(unsigned int index) const;
  NvmlResult<nvml_abi::nvmlDevice_t> handle_by_uuid(const std::string& uuid) const;
  NvmlResult<std::string> name(nvml_abi::nvmlDevice_t device) const;
  NvmlResult<std::string> uuid(nvml_abi::nvmlDevice_t device) const;
  NvmlResult<unsigned int> power_usage_mw(nvml_abi::nvmlDevice_t device) const;
  NvmlResult<unsigned long long> total_energy_mj(nvml_abi::nvmlDevice_t device) const;
  /// A power field of nvmlDeviceGetFieldValues (NVML_FI_DEV_POWER_AVERAGE or _INSTANT), GPU scope,
  /// in mW. The field's own result counts: a driver that knows the call but not the field refuses
  /// it there.
  NvmlResult<unsigned int> power_field_mw(nvml_abi::nvmlDevice_t device, unsigned int field_id) const;
  NvmlResult<unsigned int> clock_mhz(nvml_abi::nvmlDevice_t device, nvml_abi::nvmlClockType_t type) const;
  NvmlResult<unsigned int> temperature_c(nvml_abi::nvmlDevice_t device) const;
  NvmlResult<nvml_abi::nvmlUtilization_t> utilization(nvml_abi::nvmlDevice_t device) const;
  NvmlResult<nvml_abi::nvmlMemory_t> memory(nvml_abi::nvmlDevice_t device) const;
  NvmlResult<unsigned int> power_limit_mw(nvml_abi::nvmlDevice_t device) const;
  NvmlResult<unsigned int> default_power_limit_mw(nvml_abi::nvmlDevice_t device) const;
  NvmlResult<unsigned int> enforced_power_limit_mw(nvml_abi::nvmlDevice_t device) const;
  NvmlResult<std::pair<unsigned int, unsigned int>> power_limit_constraints_mw(nvml_abi::nvmlDevice_t device) const;
  NvmlResult<unsigned long long> clock_event_reasons(nvml_abi::nvmlDevice_t device) const;
  NvmlResult<std::vector<unsigned int>> supported_memory_clocks_mhz(nvml_abi::nvmlDevice_t device) const;
  NvmlResult<std::vector<unsigned int>> supported_graphics_clocks_mhz(nvml_abi::nvmlDevice_t device,
                                                                      unsigned int memory_mhz) const;
  /// Control calls (root): an empty NvmlResult<bool> error means success.
  NvmlResult<bool> set_power_limit_mw(nvml_abi::nvmlDevice_t device, unsigned int limit_mw) const;
  NvmlResult<bool> set_gpu_locked_clocks(nvml_abi::nvmlDevice_t device, NvmlClockRange range) const;
  NvmlResult<bool> reset_gpu_locked_clocks(nvml_abi::nvmlDevice_t device) const;
  NvmlResult<bool> set_memory_locked_clocks(nvml_abi::nvmlDevice_t device, NvmlClockRange range) const;
  NvmlResult<bool> reset_memory_locked_clocks(nvml_abi::nvmlDevice_t device) const;

 private:
  NvmlLibrary() = default;
  template <class T>
  NvmlResult<T> failure(std::string_view call, nvml_abi::nvmlReturn_t code) const;
  template <class T>
  NvmlResult<T> missing(std::string_view call) const;

  void* handle_ = nullptr;
  std::string path_;
  Functions fn_;
};

/// NVML's name for a return code ("NVML_ERROR_NO_PERMISSION"), independent of the library.
std::string_view nvml_return_name(nvml_abi::nvmlReturn_t code);

}  // namespace jetchar::jetson
