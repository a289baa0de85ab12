# Cross build for aarch64 Jetson boards. Set JETCHAR_SYSROOT (environment or -D) to a Jetson root
# file system or an SDK sysroot; libraries are then found only inside it.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

if(NOT JETCHAR_SYSROOT)
  set(JETCHAR_SYSROOT "$ENV{JETCHAR_SYSROOT}")
endif()
if(NOT JETCHAR_SYSROOT)
  message(FATAL_ERROR "cross-aarch64: set JETCHAR_SYSROOT to an aarch64 root file system")
endif()
set(CMAKE_SYSROOT "${JETCHAR_SYSROOT}")

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_FIND_ROOT_PATH "${CMAKE_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)   # host protoc, host cmake helpers
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${CMAKE_SYSROOT}")
set(ENV{PKG_CONFIG_LIBDIR} "${CMAKE_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${CMAKE_SYSROOT}/usr/share/pkgconfig")
