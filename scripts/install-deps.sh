#!/usr/bin/env bash
# Installs the Debian 12 packages jetchar builds, tests and benchmarks with. Idempotent: it asks
# apt only for what is missing, so a second run costs a dpkg query.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libtorch-dev libgloo-dev libboost-dev protobuf-compiler libprotobuf-dev libgpiod-dev
  libgtest-dev libgmock-dev libcli11-dev libspdlog-dev libfmt-dev
  libsqlitecpp-dev libsqlite3-dev libeigen3-dev libturbojpeg0-dev libjpeg62-turbo-dev
  libpng-dev zlib1g-dev nlohmann-json3-dev libsystemd-dev libicu-dev libssl-dev
  dataset-fashion-mnist python3-torch python3-torchvision python3-pandas systemd
  libopenblas0-pthread  # LibTorch's BLAS (libblas.so.3); without it Debian's reference BLAS does its matmuls 10x slower
  chromium  # renders the HTML report in tests/analysis/report_browser_test.cpp
  slurm-wlm munge  # a real Slurm for the fleet and data-parallel tests (ctest -L slurm: tests/slurm/)
  strace    # checks the units' SystemCallFilter against a traced sweep (ctest systemd.syscall_filter)
  clang libclang-rt-14-dev  # the fuzz preset: libFuzzer and the ASan/UBSan runtimes (scripts/fuzz-smoke.sh)
  clang-format clang-tidy   # scripts/format.sh (git clang-format) and scripts/lint.sh
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

sudo=""
[[ $(id -u) -eq 0 ]] || sudo="sudo"
echo "installing: ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
