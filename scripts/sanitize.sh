#!/usr/bin/env bash
# Builds the dev preset (Debug, AddressSanitizer + UBSan) test binaries and runs their unit and
# fixture tests: what CI runs. A sanitizer report fails the test that made it (UBSan halts too).
#   scripts/sanitize.sh [ctest args...]
# Modules: sysfs, jetson and loaders (parsers, I/O, threads), or those named in
# $JETCHAR_SANITIZE_MODULES; JETCHAR_SANITIZE_TORCH=1 adds experiments (LibTorch models and training
# runs under ASan). analysis is left out by default: its predictor fits run unoptimised here (one
# adaptive-profile test took 311 s), which CI's budget cannot carry. The integration label (whole
# CLI runs, sweeps) is left to the release build.
set -euo pipefail
cd "$(dirname "$0")/.."
read -r -a modules <<<"${JETCHAR_SANITIZE_MODULES:-sysfs jetson loaders}"
[[ ${JETCHAR_SANITIZE_TORCH:-0} == 1 ]] && modules+=(experiments)
for m in "${modules[@]}"; do
  [[ -d tests/$m ]] || { echo "sanitize.sh: '$m' is not a tested module (a folder of tests/)" >&2; exit 2; }
done
targets=() ; for m in "${modules[@]}"; do targets+=("${m}_tests"); done
scripts/build.sh dev --target "${targets[@]}"
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
regex="^($(IFS='|'; echo "${modules[*]}"))[.]"
ctest --preset dev -L '^(unit|fixture)$' -R "$regex" -j "$(nproc)" "$@"
