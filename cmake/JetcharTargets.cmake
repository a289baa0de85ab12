# Shared settings for every jetchar target. Targets opt in through these functions so that
# no global compiler flags are set: a target's flags are the ones it asks for.

find_program(JETCHAR_CCACHE ccache)
if(JETCHAR_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER "${JETCHAR_CCACHE}")
  set(CMAKE_C_COMPILER_LAUNCHER "${JETCHAR_CCACHE}")
endif()

# Common warnings, sanitizers and include root for a jetchar target.
function(jetchar_target_defaults target)
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_compile_options(${target} PRIVATE -Wall -Wextra $<$<BOOL:${JETCHAR_WERROR}>:-Werror>)
  if(JETCHAR_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined -fno-omit-frame-pointer)
    target_link_options(${target} PUBLIC -fsanitize=address,undefined)
  endif()
endfunction()

# A library for one top-level folder: jetchar_<name>, aliased jetchar::<name>; headers are
# included as "<folder>/<file>.h" from the source root.
function(jetchar_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "jetchar: module ${name} has no sources")
  endif()
  add_library(jetchar_${name} ${ARG_SOURCES})
  add_library(jetchar::${name} ALIAS jetchar_${name})
  target_include_directories(jetchar_${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}> $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}>)
  set_target_properties(jetchar_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  jetchar_target_defaults(jetchar_${name})
endfunction()

# Targets that include LibTorch get it with a precompiled header, so each translation unit
# does not re-parse torch/torch.h on a 2-core machine.
function(jetchar_use_torch target visibility)
  target_link_libraries(${target} ${visibility} jetchar_torch)
  target_precompile_headers(${target} PRIVATE <torch/torch.h>)
endfunction()
