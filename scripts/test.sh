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
# After step 3, scripts/test-budget.py holds the tests' timings against their budgets: it prints the
# slowest and whatever is over budget, and fails only on a test over 3x its budget.
# JETCHAR_SKIP_<STEP>=1 skips a step, saying so: FORMAT, LINT, SANITIZE, FUZZ, CROSS.
# --fast (first argument): what a developer runs between edits: steps 1 to 3 with only the unit and
# fixture tests that are not labelled slow (tests/test_labels.cmake), then the budget report.
# Steps 6 to 8 also skip, saying so, when they would not fit in CI's budget ($JETCHAR_CI_BUDGET_S,
# default 4800 s of the 90 minutes CI allows) even with their build cold: on a machine that builds
# slower than the one measured, a cold run leaves the last steps out, and the next run, its objects
# cached, fits them all (docs/building.md has each step's cold and warm cost).
set -euo pipefail
cd "$(dirname "$0")/.."

budget_s=${JETCHAR_CI_BUDGET_S:-4800}

timed() {
  local began=$SECONDS
  "$@"
  echo "test.sh: '$*' took $((SECONDS - began)) s (${SECONDS} s in all)" >&2
}

# optional STEP NAME COLD_S COMMAND...: runs COMMAND, timed, unless JETCHAR_SKIP_STEP=1 or, with
# COLD_S > 0, the step taking up to COLD_S seconds with its build cold (measured on the 2-core CI
# machine, docs/building.md) would end past the budget; a step left out is named.
optional() {
  local skip_var="JETCHAR_SKIP_$1" name=$2 cold_s=$3
  shift 3
  if [[ ${!skip_var:-0} == 1 ]]; then
    echo "test.sh: $skip_var=1: $name NOT run" >&2
  elif ((cold_s > 0 && SECONDS + cold_s > budget_s)); then
    echo "test.sh: $name NOT run: ${SECONDS} s spent, it takes up to ${cold_s} s cold, the budget is" \
      "${budget_s} s (JETCHAR_CI_BUDGET_S); a run with this run's objects in ccache runs it" >&2
  else
    timed "$@"
  fi
}

fast=0
if [[ ${1:-} == --fast ]]; then
  fast=1
  shift
fi

# tests WALL_BUDGET_S CTEST_ARGS...: the release tests, then their timings against the budgets
# (docs/building.md).
tests() {
  local wall_budget=$1 began=$SECONDS
  shift
  ctest --preset release --output-junit ctest-junit.xml "$@"
  local wall=$((SECONDS - began))
  ctest --preset release --show-only=json-v1 >build/release/ctest-tests.json
  scripts/test-budget.py build/release/ctest-junit.xml build/release/ctest-tests.json --wall "$wall" \
    --wall-budget "$wall_budget" --label-list tests/test_labels.cmake
}

timed scripts/install-deps.sh
optional FORMAT "the format check" 0 scripts/format.sh
timed scripts/build.sh release
if ((fast)); then
  timed tests 120 -L '^(unit|fixture)$' -LE '^(slow|browser|slurm)$' "$@"
  exit 0
fi
timed tests 600 "$@"
optional LINT "clang-tidy" 0 scripts/lint.sh -p build/release
timed scripts/package.sh native >/dev/null
optional SANITIZE "the ASan/UBSan tests" 550 scripts/sanitize.sh
optional FUZZ "the fuzz smoke" 550 scripts/fuzz-smoke.sh
optional CROSS "the aarch64 cross build and tests" 750 scripts/cross-test.sh --ci
