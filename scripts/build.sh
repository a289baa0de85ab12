#!/usr/bin/env bash
# Configures (once) and builds one preset. Usage: scripts/build.sh [preset] [cmake --build args...]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}; shift || true

# ccache keyed on paths relative to the source tree, so a fresh clone reuses earlier objects.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
[[ -f "build/$preset/CMakeCache.txt" ]] || cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" "$@"
