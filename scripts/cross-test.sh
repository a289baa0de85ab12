#!/usr/bin/env bash
# One command for the aarch64 proof: builds the Debian 12 arm64 sysroot (scripts/build-sysroot.sh),
# cross-compiles the WHOLE project with the `cross-aarch64` preset (LibTorch modules included,
# against the sysroot's arm64 libtorch-dev), runs the aarch64 `jetchar` under qemu-aarch64 and
# the test binaries under QEMU with that sysroot (the toolchain file sets
# CMAKE_CROSSCOMPILING_EMULATOR, so ctest and gtest_discover_tests run them through QEMU).
#
# Usage: scripts/cross-test.sh [--ci] [extra ctest args...]
#   (default) everything: build every target, smoke the aarch64 jetchar (--version, device info and
#             a 2-run sweep on a simulated AGX Orin), build and check the arm64 .deb
#             (scripts/package.sh cross: contents, Depends from the sysroot, the packaged jetchar
#             under QEMU), then every test under QEMU.
#   --ci      what CI runs (scripts/test.sh): the aarch64 jetchar only (its libraries and the cli,
#             no test binaries), the smoke and the arm64 .deb. A cold cross build of every test
#             binary and the tests under QEMU take about half an hour on 2 cores, which a cold CI run
#             (90 minutes for everything) cannot afford; JETCHAR_CROSS_TESTS=1 adds them to --ci,
#             except the experiments integration batch (LibTorch training to accuracy, resumed sweeps:
#             tens of minutes under QEMU) and the command-line tests (cli.*), which start jetchar
#             dozens of times and run natively in scripts/test.sh.
# Tests that start jetchar themselves (device control and monitor CLI, sweep resume, the analysis
# sweep) start it through the same emulator (tests/support/jetchar_cli.h): without binfmt_misc the
# host kernel would refuse an aarch64 execve (ENOEXEC).
# JETCHAR_SYSROOT, when set, names an existing sysroot and skips the download.
# Any failure (no network for the sysroot, a compile error, a failing test) exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."

scope=all
if [[ ${1:-} == --ci ]]; then scope=ci; shift; fi

start=$SECONDS
phase() { echo "cross-test: $1 ($((SECONDS - start)) s so far)" >&2; }
fail() { echo "cross-test: FAILED: $*" >&2; exit 1; }

if [[ -z ${JETCHAR_SYSROOT:-} ]]; then
  phase "sysroot"
  JETCHAR_SYSROOT=$(scripts/build-sysroot.sh)
fi
export JETCHAR_SYSROOT QEMU_LD_PREFIX=$JETCHAR_SYSROOT
[[ -d $JETCHAR_SYSROOT/usr/include ]] || fail "$JETCHAR_SYSROOT is not a sysroot"
build=build/cross-aarch64
qemu=(qemu-aarch64 -L "$JETCHAR_SYSROOT")

cross_tests=1
[[ $scope == ci && ${JETCHAR_CROSS_TESTS:-0} != 1 ]] && cross_tests=0
if [[ $cross_tests == 1 ]]; then
  phase "build (every target, -j${JETCHAR_CROSS_JOBS:-2})"
  scripts/build.sh cross-aarch64 -j"${JETCHAR_CROSS_JOBS:-2}"
else
  phase "build (jetchar, -j${JETCHAR_CROSS_JOBS:-2})"
  scripts/build.sh cross-aarch64 -j"${JETCHAR_CROSS_JOBS:-2}" --target jetchar
fi

# The aarch64 jetchar under qemu-aarch64: the commands a user runs first, and a real sweep on the
# simulated board (mode changes, LeNet-5 training through the LibTorch runner, the SQLite store,
# the summary table: 2 runs x 2 epochs x 3 minibatches of synthetic data).
smoke_jetchar() {
  phase "smoke: the aarch64 jetchar under qemu-aarch64"
  local jetchar=$build/cli/jetchar
  readelf -h "$jetchar" | grep -q 'Machine: *AArch64' || fail "$jetchar is not an aarch64 binary"
  "${qemu[@]}" "$jetchar" --version
  # Output captured first: grep -q closing the pipe early would fail the pipeline (pipefail).
  # (`jetchar models` for three models is in scripts/package.sh cross: all 29 take about 3 min
  # under QEMU.)
  local out
  out=$("${qemu[@]}" "$jetchar" device info --board sim:agx-orin-r36) || fail "jetchar device info under QEMU"
  grep -qi 'AGX Orin' <<<"$out" || fail "jetchar device info --board sim:agx-orin-r36 does not describe an AGX Orin"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  cat > "$tmp/sweep.textproto" <<'EOF'
  name: "cross-smoke"
  board: "sim:agx-orin-r36"
  base {
    workload { model: "lenet5" dataset: "synthetic:1x28x28?samples=192&classes=10" batch_size: 32
               epochs: 2 max_minibatches: 3 device: "cpu" }
    loader { workers: 1 }
    device { cpu_freq_mhz: 1728 dvfs: OFF }
    measurement { sample_rate_hz: 20 }
  }
  axes { field: "device.gpu_freq_mhz" values: ["306", "612"] }
EOF
  "${qemu[@]}" "$jetchar" device modes --board sim:agx-orin-r36 --root "$tmp/board" >/dev/null
  "${qemu[@]}" "$jetchar" sweep run "$tmp/sweep.textproto" --board sim:agx-orin-r36 --root "$tmp/board" \
    --results "$tmp/results" > "$tmp/sweep.log" 2>&1 || { cat "$tmp/sweep.log" >&2; fail "sweep under QEMU"; }
  grep -q '2 of 2 runs stored (2 run now, 0 not OK)' "$tmp/sweep.log" || { cat "$tmp/sweep.log" >&2; fail "sweep under QEMU did not store 2 OK runs"; }
  phase "smoke passed"
}
smoke_jetchar

phase "arm64 .deb (scripts/package.sh cross)"
scripts/package.sh cross >/dev/null

# The LibTorch batches (one ctest test per label) run minutes to tens of minutes under QEMU. The
# command-line tests (cli.*: the contract and the documented examples) start the LibTorch-linked
# jetchar dozens of times each; --ci runs them natively only (scripts/test.sh), the smoke above
# runs jetchar itself under QEMU, and a run without --ci includes them.
if [[ $cross_tests == 0 ]]; then
  echo "cross-test: --ci without JETCHAR_CROSS_TESTS=1: the tests under qemu-aarch64 are NOT run" >&2
  phase "done"
  exit 0
fi
ctest_args=(--timeout 2700)
[[ $scope == ci ]] && ctest_args+=(-E '^(experiments[.]integration|cli[.].*)$')

phase "tests under qemu-aarch64 ($scope)"
ctest --test-dir "$build" --output-on-failure -j2 "${ctest_args[@]}" "$@"
phase "done"
