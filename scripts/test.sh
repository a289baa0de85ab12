#!/usr/bin/env bash
# What CI runs (.ci/run), in order; docs/building.md says what each step costs:
#   1. scripts/install-deps.sh (what is missing);
#   2. scripts/format.sh: the lines changed since scripts/ci-base.sh's revision follow .clang-format;
#   3. the release build and every native test (ctest --preset release; arguments go to ctest);
#   4. scripts/lint.sh: clang-tidy on the C++ files changed since that revision (LibTorch ones skipped);
#   5. the amd64 .deb (scripts/package.sh native: contents, Depends, dpkg --dry-run -i, the packaged
#      jetchar runs; nothing is installed);
#   6. scripts/sanitize.sh: the dev preset (ASan + UBSan) and its unit and fixture tests of sysfs,
#      jetson and loaders (JETCHAR_SANITIZE_MODULES names others; JETCHAR_SANITIZE_TORCH=1 adds experiments);
#   7. scripts/fuzz-smoke.sh: every fuzz target for $JETCHAR_FUZZ_SECONDS (default 4) s from its seeds;
#   8. the aarch64 cross build of jetchar, a smoke of it under QEMU and the arm64 .deb
#      (scripts/cross-test.sh --ci; JETCHAR_CROSS_TESTS=1 adds the cross build of every test and the
#      tests under QEMU). A sysroot that cannot be downloaded fails the run.
# JETCHAR_SKIP_<STEP>=1 skips a step, saying so: FORMAT, LINT, SANITIZE, FUZZ, CROSS.
set -euo pipefail
cd "$(dirname "$0")/.."

skipped() {
  local var="JETCHAR_SKIP_$1"
  if [[ ${!var:-0} == 1 ]]; then echo "test.sh: $var=1: $2 NOT run" >&2; return 0; fi
  return 1
}

scripts/install-deps.sh
skipped FORMAT "the format check" || scripts/format.sh
scripts/build.sh release
ctest --preset release "$@"
skipped LINT "clang-tidy" || scripts/lint.sh -p build/release
scripts/package.sh native >/dev/null
skipped SANITIZE "the ASan/UBSan tests" || scripts/sanitize.sh
skipped FUZZ "the fuzz smoke" || scripts/fuzz-smoke.sh
skipped CROSS "the aarch64 cross build and tests" || scripts/cross-test.sh --ci
