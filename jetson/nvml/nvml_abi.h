// The part of NVML's C ABI that jetchar calls, declared here so that jetchar neither needs nvml.h
// at build time nor links libnvidia-ml: the library is opened at run time (nvml_library.h).
//
// Every fact below is NVML's, from NVIDIA's public nvml.h as vendored by NVIDIA/go-nvml
// (gen/nvml/nvml.h, commit 2f9e261f, 2026-07): nvmlReturn_t values (enum nvmlReturn_enum),
// nvmlDevice_t as an opaque pointer (typedef struct nvmlDevice_st*), nvmlClockType_t and
// nvmlTemperatureSensors_t values, the layout of nvmlUtilization_t and nvmlMemory_t (v1), the
// buffer sizes, the clock event reason bits, and each function's parameter list. The unversioned
// names nvmlInit / nvmlDeviceGetCount / nvmlDeviceGetHandleByIndex are macros for the *_v2 symbols
// there, so the *_v2 symbols are what the library exports and what jetchar looks up. DECLDIR is
// empty on Linux: the plain C calling convention.
//
// nvmlDeviceGetFieldValues' types (nvmlValueType_t, nvmlValue_t, nvmlFieldValue_t) and the two
// power field ids come from NVML 13.3.29's nvml.h (NVIDIA's cuda_nvml_dev redistributable; the
// ids are the same in the NVML bindings that list them): NVML_FI_DEV_POWER_AVERAGE (185, averaged
// over 1 s, Ampere but GA100 and newer) and NVML_FI_DEV_POWER_INSTANT (186, every architecture).
//
// Units (nvml.h): power and power limits in mW, energy in mJ since the driver was loaded
// (Volta and newer), clocks in MHz, temperature in °C, utilisation in percent, memory in bytes.
#pragma once

#include <cstdint>

namespace jetchar::jetson::nvml_abi {

using nvmlReturn_t = int;  // enum nvmlReturn_enum: an int-sized C enum
inline constexpr nvmlReturn_t NVML_SUCCESS = 0;
inline constexpr nvmlReturn_t NVML_ERROR_UNINITIALIZED = 1;
inline constexpr nvmlReturn_t NVML_ERROR_INVALID_ARGUMENT = 2;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_SUPPORTED = 3;
inline constexpr nvmlReturn_t NVML_ERROR_NO_PERMISSION = 4;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_FOUND = 6;
inline constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_SIZE = 7;
inline constexpr nvmlReturn_t NVML_ERROR_DRIVER_NOT_LOADED = 9;
inline constexpr nvmlReturn_t NVML_ERROR_LIBRARY_NOT_FOUND = 12;
inline constexpr nvmlReturn_t NVML_ERROR_FUNCTION_NOT_FOUND = 13;
inline constexpr nvmlReturn_t NVML_ERROR_GPU_IS_LOST = 15;
inline constexpr nvmlReturn_t NVML_ERROR_UNKNOWN = 999;

struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;

using nvmlClockType_t = int;  // enum nvmlClockType_enum
inline constexpr nvmlClockType_t NVML_CLOCK_GRAPHICS = 0;
inline constexpr nvmlClockType_t NVML_CLOCK_SM = 1;
inline constexpr nvmlClockType_t NVML_CLOCK_MEM = 2;

using nvmlTemperatureSensors_t = int;  // enum nvmlTemperatureSensors_enum
inline constexpr nvmlTemperatureSensors_t NVML_TEMPERATURE_GPU = 0;

struct nvmlUtilization_t {  // struct nvmlUtilization_st
  unsigned int gpu;         // % of the last sample period with a kernel running
  unsigned int memory;      // % of the last sample period with device memory read or written
};

struct nvmlMemory_t {  // struct nvmlMemory_st (v1)
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

using nvmlValueType_t = int;  // enum nvmlValueType_enum
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_DOUBLE = 0;
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_UNSIGNED_INT = 1;
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_UNSIGNED_LONG = 2;
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3;
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4;
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_SIGNED_INT = 5;
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_UNSIGNED_SHORT = 6;

union nvmlValue_t {  // union nvmlValue_st
  double dVal;
  int siVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  signed long long sllVal;
  unsigned short usVal;
};

struct nvmlFieldValue_t {  // struct nvmlFieldValue_st
  unsigned int fieldId;    // set by the caller
  unsigned int scopeId;    // for the power fields: 0 = NVML_POWER_SCOPE_GPU
  long long timestamp;     // CPU time of the value, µs since 1970
  long long latencyUsec;
  nvmlValueType_t valueType;
  nvmlReturn_t nvmlReturn;  // this field's own result: value is undefined unless NVML_SUCCESS
  nvmlValue_t value;
};

inline constexpr unsigned int NVML_FI_DEV_POWER_AVERAGE = 185;
inline constexpr unsigned int NVML_FI_DEV_POWER_INSTANT = 186;
inline constexpr unsigned int NVML_POWER_SCOPE_GPU = 0;

inline constexpr unsigned int NVML_DEVICE_UUID_BUFFER_SIZE = 80;
inline constexpr unsigned int NVML_DEVICE_NAME_V2_BUFFER_SIZE = 96;
inline constexpr unsigned int NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE = 80;

// nvmlClocksEventReason* (nvmlClocksThrottleReason* before r535: the same bits).
inline constexpr unsigned long long kReasonGpuIdle = 0x1ULL;
inline constexpr unsigned long long kReasonApplicationsClocksSetting = 0x2ULL;
inline constexpr unsigned long long kReasonSwPowerCap = 0x4ULL;
inline constexpr unsigned long long kReasonHwSlowdown = 0x8ULL;
inline constexpr unsigned long long kReasonSyncBoost = 0x10ULL;
inline constexpr unsigned long long kReasonSwThermalSlowdown = 0x20ULL;
inline constexpr unsigned long long kReasonHwThermalSlowdown = 0x40ULL;
inline constexpr unsigned long long kReasonHwPowerBrakeSlowdown = 0x80ULL;
inline constexpr unsigned long long kReasonDisplayClockSetting = 0x100ULL;

// Function types, one per symbol looked up.
using InitFn = nvmlReturn_t (*)();                    // nvmlInit_v2
using ShutdownFn = nvmlReturn_t (*)();                // nvmlShutdown
using ErrorStringFn = const char* (*)(nvmlReturn_t);  // nvmlErrorString
using SystemGetDriverVersionFn = nvmlReturn_t (*)(char*, unsigned int);
using DeviceGetCountFn = nvmlReturn_t (*)(unsigned int*);                        // nvmlDeviceGetCount_v2
using DeviceGetHandleByIndexFn = nvmlReturn_t (*)(unsigned int, nvmlDevice_t*);  // *_v2
using DeviceGetHandleByUuidFn = nvmlReturn_t (*)(const char*, nvmlDevice_t*);
using DeviceGetTextFn = nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned int);  // GetName, GetUUID
using DeviceGetUintFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*);        // GetPowerUsage, limits
using DeviceGetUllFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned long long*);   // energy, reasons
using DeviceGetClockInfoFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlClockType_t, unsigned int*);
using DeviceGetTemperatureFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlTemperatureSensors_t, unsigned int*);
using DeviceGetUtilizationRatesFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlUtilization_t*);
using DeviceGetMemoryInfoFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t*);
using DeviceGetLimitConstraintsFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*, unsigned int*);
using DeviceGetSupportedMemoryClocksFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*, unsigned int*);
using DeviceGetSupportedGraphicsClocksFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int, unsigned int*, unsigned int*);
using DeviceSetUintFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int);                      // SetPowerManagementLimit
using DeviceSetClockRangeFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int, unsigned int);  // Set*LockedClocks
using DeviceResetFn = nvmlReturn_t (*)(nvmlDevice_t);                                      // Reset*LockedClocks
using DeviceGetFieldValuesFn = nvmlReturn_t (*)(nvmlDevice_t, int, nvmlFieldValue_t*);     // nvmlDeviceGetFieldValues

}  // namespace jetchar::jetson::nvml_abi
