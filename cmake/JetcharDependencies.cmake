# Every dependency comes from a Debian 12 package (scripts/install-deps.sh lists them) or, in a
# cross build, from the sysroot named by CMAKE_SYSROOT.

find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(Eigen3 REQUIRED NO_MODULE)
find_package(SQLiteCpp REQUIRED)
find_package(Protobuf REQUIRED)
find_package(Boost 1.74 REQUIRED)                 # header-only Asio
find_package(ZLIB REQUIRED)
find_package(OpenSSL REQUIRED COMPONENTS Crypto)  # SHA-256 of redacted board serial numbers
find_package(PNG REQUIRED)
pkg_check_modules(GPIOD REQUIRED IMPORTED_TARGET libgpiod)
pkg_check_modules(SYSTEMD REQUIRED IMPORTED_TARGET libsystemd)
pkg_check_modules(TURBOJPEG REQUIRED IMPORTED_TARGET libturbojpeg)

# LibTorch: Debian's libtorch-dev installs TorchConfig.cmake; NVIDIA's Jetson wheels ship the
# same file under site-packages/torch/share/cmake (point Torch_DIR at it).
find_package(Torch REQUIRED)
add_library(jetchar_torch INTERFACE)
target_link_libraries(jetchar_torch INTERFACE ${TORCH_LIBRARIES})
target_include_directories(jetchar_torch SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})
separate_arguments(_jetchar_torch_flags UNIX_COMMAND "${TORCH_CXX_FLAGS}")
target_compile_options(jetchar_torch INTERFACE ${_jetchar_torch_flags})
# Data-parallel training's Gloo process group (experiments/distributed/): Debian's LibTorch links
# the shared libgloo and leaves its headers to libgloo-dev; LibTorch's own builds carry Gloo inside.
find_library(JETCHAR_GLOO_LIBRARY gloo)
if(JETCHAR_GLOO_LIBRARY)
  target_link_libraries(jetchar_torch INTERFACE ${JETCHAR_GLOO_LIBRARY})
endif()
if(TARGET torch_cuda OR TORCH_CUDA_LIBRARIES)
  target_compile_definitions(jetchar_torch INTERFACE JETCHAR_WITH_CUDA=1)
endif()

if(JETCHAR_BUILD_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()
