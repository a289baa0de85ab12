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

set(JETCHAR_UNITY_BATCH 8 CACHE STRING "Sources per unity translation unit of the libraries and the CLI (0: no unity build)")

# TARGET's sources compile JETCHAR_UNITY_BATCH at a time, as one translation unit each (CMake's
# unity build): for targets whose files include the same costly headers. A source with its own
# compile definitions compiles on its own. GCC takes the merged .cpp files for headers and would
# warn of a class holding a member of a file's anonymous namespace (-Wsubobject-linkage), which is
# right in a .cpp file.
function(jetchar_unity_build target)
  if(JETCHAR_UNITY_BATCH GREATER 1)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${JETCHAR_UNITY_BATCH})
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      target_compile_options(${target} PRIVATE -Wno-subobject-linkage)
    endif()
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
  jetchar_unity_build(jetchar_${name})
endfunction()

# Whether FILE, or a header of this project that it includes (transitively, as "<folder>/<file>.h"
# from the source root), includes LibTorch. Answers are kept per file for the configure run.
function(_jetchar_includes_torch file out)
  get_property(known GLOBAL PROPERTY "_jetchar_torch:${file}" SET)
  if(NOT known)
    # Set before the walk so that an include cycle ends.
    set_property(GLOBAL PROPERTY "_jetchar_torch:${file}" OFF)
    set(found OFF)
    file(STRINGS "${file}" includes REGEX "^[ \t]*#[ \t]*include")
    foreach(line IN LISTS includes)
      if(line MATCHES "<(torch|ATen|c10|caffe2)/")
        set(found ON)
      elseif(line MATCHES "\"([^\"]+)\"")
        # Generated headers (build tree) and others' headers include no LibTorch of ours.
        set(header "${PROJECT_SOURCE_DIR}/${CMAKE_MATCH_1}")
        if(EXISTS "${header}")
          _jetchar_includes_torch("${header}" found)
        endif()
      endif()
      if(found)
        break()
      endif()
    endforeach()
    set_property(GLOBAL PROPERTY "_jetchar_torch:${file}" ${found})
  endif()
  get_property(found GLOBAL PROPERTY "_jetchar_torch:${file}")
  set(${out} ${found} PARENT_SCOPE)
endfunction()

# Targets that include LibTorch: their LibTorch sources compile JETCHAR_UNITY_BATCH at a time, as
# one translation unit each, with torch/torch.h precompiled where there is more than one such unit,
# so that the 650 MB header is parsed or loaded once per unit, not once per file (on a 2-core machine
# that was most of a cold build). Their sources that include no LibTorch header compile on their
# own without it: the header costs such a file more than twice its own compile time
# (docs/building.md). The scan runs at configure time; a file that starts including LibTorch later
# still builds, only slower, until the next configure.
function(jetchar_use_torch target visibility)
  target_link_libraries(${target} ${visibility} jetchar_torch)
  get_target_property(sources ${target} SOURCES)
  get_target_property(source_dir ${target} SOURCE_DIR)
  set(torch_free "")
  set(torch_sources 0)
  foreach(source IN LISTS sources)
    cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY "${source_dir}")
    if(source MATCHES "\\.cpp$")
      _jetchar_includes_torch("${source}" uses_torch)
      if(uses_torch)
        math(EXPR torch_sources "${torch_sources} + 1")
      else()
        list(APPEND torch_free "${source}")
      endif()
    endif()
  endforeach()
  # Loading the precompiled header alone costs a translation unit about 10 s.
  set(units ${torch_sources})
  if(JETCHAR_UNITY_BATCH GREATER 1 AND torch_sources GREATER 1)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${JETCHAR_UNITY_BATCH})
    math(EXPR units "(${torch_sources} + ${JETCHAR_UNITY_BATCH} - 1) / ${JETCHAR_UNITY_BATCH}")
  endif()
  if(units GREATER 1)
    target_precompile_headers(${target} PRIVATE <torch/torch.h>)
  endif()
  if(torch_free)
    set_source_files_properties(${torch_free} TARGET_DIRECTORY ${target} PROPERTIES
      SKIP_PRECOMPILE_HEADERS ON SKIP_UNITY_BUILD_INCLUSION ON)
  endif()
endfunction()
