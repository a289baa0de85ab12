#!/usr/bin/env bash
# Installs what is missing, builds the release preset and runs the whole test suite, checks the
# amd64 .deb (scripts/package.sh native: contents, Depends, dpkg --dry-run -i, the packaged
# jetchar runs; nothing is installed), then the aarch64 cross build of jetchar, a smoke of it
# under QEMU and the arm64 .deb (scripts/cross-test.sh --ci; JETCHAR_CROSS_TESTS=1 adds the cross
# build of every test and the tests under QEMU; JETCHAR_SKIP_CROSS=1 skips it all, saying so). A sysroot that
# cannot be downloaded fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh release
ctest --preset release "$@"
scripts/package.sh native >/dev/null
if [[ ${JETCHAR_SKIP_CROSS:-0} == 1 ]]; then
  echo "test.sh: JETCHAR_SKIP_CROSS=1: aarch64 cross build and tests NOT run" >&2
else
  scripts/cross-test.sh --ci
fi
