#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job on this machine: what the board is, a
# LeNet-5 / Fashion-MNIST characterization of this machine (batch x workers x cache policy) and
# a power-mode sweep — on a Jetson the real board, elsewhere a simulated AGX Orin. Results that
# are already stored are kept (a second run resumes and finishes at once).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh release --target jetchar
jetchar=build/release/cli/jetchar

echo "== this machine =="
"$jetchar" device info
echo
echo "== a simulated AGX Orin (JetPack 6, L4T R36) =="
"$jetchar" device info --board sim:agx-orin-r36
echo
echo "== characterization of this machine: examples/quickstart-host.textproto =="
"$jetchar" sweep run examples/quickstart-host.textproto
echo
if grep -qs tegra /proc/device-tree/compatible; then
  echo "== power-mode sweep on this Jetson: examples/sim-agx-orin-power-modes.textproto =="
  "$jetchar" sweep run examples/sim-agx-orin-power-modes.textproto --board jetson --results results/agx-orin-modes
else
  echo "== power-mode sweep on a simulated AGX Orin: examples/sim-agx-orin-power-modes.textproto =="
  "$jetchar" sweep run examples/sim-agx-orin-power-modes.textproto
fi
echo
echo "results: results/ (jetchar results list results/<sweep>; jetchar results export ... --csv)"
