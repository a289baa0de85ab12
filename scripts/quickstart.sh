#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job on this machine.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh release --target jetchar
jetchar=build/release/cli/jetchar

echo "== this machine =="
"$jetchar" device info
echo
echo "== simulated AGX Orin (JetPack 6, L4T R36) =="
"$jetchar" device info --board sim:agx-orin-r36
