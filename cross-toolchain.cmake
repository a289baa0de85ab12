# Cross build for aarch64 Jetson boards (preset `cross-aarch64`).
#
# JETCHAR_SYSROOT (environment or -D) names an aarch64 root file system: a Jetson's root file
# system (JetPack's Linux_for_Tegra/rootfs, or one copied off a board), an SDK sysroot, or the
# Debian 12 arm64 tree that scripts/build-sysroot.sh extracts. Headers, libraries, pkg-config
# files and CMake package configs (LibTorch included) are then found only inside it; programs
# (protoc, pkg-config) come from the host. Nothing here names a host path: tools are found on PATH.
#
# Variables (cache or environment):
#   JETCHAR_SYSROOT         the sysroot (required)
#   JETCHAR_CROSS_PREFIX    compiler prefix, default "aarch64-linux-gnu-" (Debian's
#                           g++-aarch64-linux-gnu); for NVIDIA's L4T toolchain use e.g.
#                           "aarch64-buildroot-linux-gnu-" with its bin/ on PATH
#   Torch_DIR               where TorchConfig.cmake lies, if not at the Debian location
#                           <sysroot>/usr/lib/aarch64-linux-gnu/cmake/Torch; a sysroot with NVIDIA's
#                           Jetson PyTorch wheel has it under
#                           <sysroot>/usr/{local/,}lib/python3.X/{dist,site}-packages/torch/share/cmake/Torch,
#                           which is probed when Torch_DIR is unset
# The test binaries run under qemu-aarch64 -L <sysroot> (CMAKE_CROSSCOMPILING_EMULATOR), so
# ctest and gtest_discover_tests work on an x86-64 host.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

if(NOT JETCHAR_SYSROOT)
  set(JETCHAR_SYSROOT "$ENV{JETCHAR_SYSROOT}")
endif()
if(NOT JETCHAR_SYSROOT)
  message(FATAL_ERROR "cross-aarch64: set JETCHAR_SYSROOT to an aarch64 root file system "
                      "(scripts/build-sysroot.sh makes one from Debian 12 arm64 packages)")
endif()
if(NOT IS_DIRECTORY "${JETCHAR_SYSROOT}/usr/include")
  message(FATAL_ERROR "cross-aarch64: JETCHAR_SYSROOT=${JETCHAR_SYSROOT} is not a root file "
                      "system with headers (no usr/include); valid: a Jetson rootfs or an SDK sysroot")
endif()
# try_compile projects re-read this file without the cache; pass the value on.
set(JETCHAR_SYSROOT "${JETCHAR_SYSROOT}" CACHE PATH "aarch64 root file system to build against")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES JETCHAR_SYSROOT JETCHAR_CROSS_PREFIX)
set(CMAKE_SYSROOT "${JETCHAR_SYSROOT}")

if(NOT DEFINED JETCHAR_CROSS_PREFIX)
  if(DEFINED ENV{JETCHAR_CROSS_PREFIX})
    set(JETCHAR_CROSS_PREFIX "$ENV{JETCHAR_CROSS_PREFIX}")
  else()
    set(JETCHAR_CROSS_PREFIX aarch64-linux-gnu-)
  endif()
endif()
set(CMAKE_C_COMPILER ${JETCHAR_CROSS_PREFIX}gcc)
set(CMAKE_CXX_COMPILER ${JETCHAR_CROSS_PREFIX}g++)

set(CMAKE_FIND_ROOT_PATH "${CMAKE_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)   # host protoc, pkg-config, qemu
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config: host binary, sysroot's .pc files, -I/-L prefixed with the sysroot.
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${CMAKE_SYSROOT}")
set(ENV{PKG_CONFIG_LIBDIR}
    "${CMAKE_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${CMAKE_SYSROOT}/usr/lib/pkgconfig:${CMAKE_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

# Shared libraries' own dependencies (libtorch -> libopenblas, libopencv, ...) are resolved by the
# linker inside the sysroot, not on the host.
foreach(dir lib/aarch64-linux-gnu usr/lib/aarch64-linux-gnu usr/local/lib)
  string(APPEND CMAKE_EXE_LINKER_FLAGS_INIT " -Wl,-rpath-link,${CMAKE_SYSROOT}/${dir}")
  string(APPEND CMAKE_SHARED_LINKER_FLAGS_INIT " -Wl,-rpath-link,${CMAKE_SYSROOT}/${dir}")
endforeach()

# protoc runs on the host and must be the version of the sysroot's libprotobuf (generated code
# checks it at compile time: Debian 12 ships 3.21.12 in both protobuf-compiler and libprotobuf-dev;
# JetPack 6 / Ubuntu 22.04 ships 3.12.4). FindProtobuf looks for it with find_program (host).

# LibTorch from NVIDIA's Jetson wheel, when the Debian location does not exist.
if(NOT Torch_DIR AND NOT DEFINED ENV{Torch_DIR}
   AND NOT EXISTS "${CMAKE_SYSROOT}/usr/lib/aarch64-linux-gnu/cmake/Torch/TorchConfig.cmake")
  file(GLOB _jetchar_torch_configs
       "${CMAKE_SYSROOT}/usr/local/lib/python3*/dist-packages/torch/share/cmake/Torch/TorchConfig.cmake"
       "${CMAKE_SYSROOT}/usr/lib/python3*/dist-packages/torch/share/cmake/Torch/TorchConfig.cmake"
       "${CMAKE_SYSROOT}/usr/local/lib/python3*/site-packages/torch/share/cmake/Torch/TorchConfig.cmake")
  if(_jetchar_torch_configs)
    list(GET _jetchar_torch_configs 0 _jetchar_torch_config)
    get_filename_component(_jetchar_torch_dir "${_jetchar_torch_config}" DIRECTORY)
    set(Torch_DIR "${_jetchar_torch_dir}" CACHE PATH "TorchConfig.cmake inside the sysroot")
  endif()
endif()

# Run cross-built executables (tests, gtest discovery) under user-mode QEMU with the sysroot's
# dynamic loader and libraries.
find_program(JETCHAR_QEMU_AARCH64 qemu-aarch64)
if(JETCHAR_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${JETCHAR_QEMU_AARCH64};-L;${CMAKE_SYSROOT}")
endif()
