#!/usr/bin/env bash
# Installs what is missing, builds the release preset and runs the whole test suite, then the
# aarch64 cross build and its QEMU tests (scripts/cross-test.sh --ci; JETCHAR_SKIP_CROSS=1 skips
# it, saying so). A sysroot that cannot be downloaded fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh release
ctest --preset release "$@"
if [[ ${JETCHAR_SKIP_CROSS:-0} == 1 ]]; then
  echo "test.sh: JETCHAR_SKIP_CROSS=1: aarch64 cross build and tests NOT run" >&2
else
  scripts/cross-test.sh --ci
fi
