#!/usr/bin/env bash
# One command for the aarch64 proof: builds the Debian 12 arm64 sysroot (scripts/build-sysroot.sh),
# cross-compiles the WHOLE project with the `cross-aarch64` preset (LibTorch modules included,
# against the sysroot's arm64 libtorch-dev), runs the aarch64 `jetchar` under qemu-aarch64 and
# the test binaries under QEMU with that sysroot (the toolchain file sets
# CMAKE_CROSSCOMPILING_EMULATOR, so ctest and gtest_discover_tests run them through QEMU).
#
# Usage: scripts/cross-test.sh [--ci] [extra ctest args...]
#   (default) everything: build all targets, smoke the aarch64 jetchar, build and check the arm64
#             .deb (scripts/package.sh cross: contents, Depends from the sysroot, jetchar under
#             QEMU), then every test under QEMU (LibTorch batches with a 45 min timeout each).
#   --ci      what CI runs (scripts/test.sh): build the test binaries of JETCHAR_CROSS_CI_MODULES
#             (default "sysfs") and run them under QEMU. With JETCHAR_CROSS_CI_JETCHAR=1 it also
#             builds `jetchar` (every library module, LibTorch ones included, so a cross compile
#             error in any of them fails CI) and smokes it under QEMU (--version, models, device
#             info and a 2-run sweep on a simulated AGX Orin). Both stay off by default until the
#             aarch64 LibTorch build has been measured on CI's 2 cores: a cold cross build of the
#             LibTorch modules costs tens of CPU minutes (README, "Deployment", for the numbers and
#             the proposed CI scope: JETCHAR_CROSS_CI_JETCHAR=1 JETCHAR_CROSS_CI_MODULES="sysfs jetson
#             analysis"). The LibTorch test batches (loaders, experiments) stay in the full run.
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

read -r -a modules <<<"${JETCHAR_CROSS_CI_MODULES:-sysfs}"
smoke=1
if [[ $scope == ci ]]; then
  targets=(--target)
  for m in "${modules[@]}"; do targets+=("${m}_tests"); done
  if [[ ${JETCHAR_CROSS_CI_JETCHAR:-0} == 1 ]]; then targets+=(jetchar); else smoke=0; fi
else
  targets=()   # every target
fi
phase "build (${targets[*]:-all targets}, -j${JETCHAR_CROSS_JOBS:-2})"
scripts/build.sh cross-aarch64 -j"${JETCHAR_CROSS_JOBS:-2}" "${targets[@]}"

# The aarch64 jetchar under qemu-aarch64: the commands a user runs first, and a real sweep on the
# simulated board (mode changes, LeNet-5 training through the LibTorch runner, the SQLite store,
# the summary table: 2 runs x 2 epochs x 3 minibatches of synthetic data).
smoke_jetchar() {
  phase "smoke: the aarch64 jetchar under qemu-aarch64"
  local jetchar=$build/cli/jetchar
  readelf -h "$jetchar" | grep -q 'Machine: *AArch64' || fail "$jetchar is not an aarch64 binary"
  "${qemu[@]}" "$jetchar" --version
  # Output captured first: grep -q closing the pipe early would fail the pipeline (pipefail).
  # (`jetchar models`, ~4 min under QEMU as it builds every model, is in scripts/package.sh cross.)
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
[[ $smoke == 1 ]] && smoke_jetchar

if [[ $scope == all ]]; then
  phase "arm64 .deb (scripts/package.sh cross)"
  scripts/package.sh cross
fi

if [[ $scope == ci ]]; then
  # Test names carry the module as prefix (sysfs.RootTest.X); select by name, not label.
  ctest_args=(-R "^($(IFS='|'; echo "${modules[*]}"))\\." --timeout 600)
else
  # The LibTorch batches (one ctest test per label) run minutes to tens of minutes under QEMU.
  ctest_args=(--timeout 2700)
fi

phase "tests under qemu-aarch64 ($scope)"
ctest --test-dir "$build" --output-on-failure -j2 "${ctest_args[@]}" "$@"
phase "done"
