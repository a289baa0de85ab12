#!/usr/bin/env bash
# Test (ctest systemd.syscall_filter): every system call that jetchar makes in what the units
# run must be allowed by that unit's SystemCallFilter= lines. PID 1 here is not systemd, so the
# units cannot be started; instead the real binary is traced (strace -f, all threads) doing the
# same work on a simulated AGX Orin:
#   jetchar-sweep@.service    a small power-mode sweep (mode changes, a worker, page-cache
#                             eviction, SQLite store) then `device restore`
#   jetchar-restore.service   `device restore` of a kept `device set` (13 journaled attributes)
# and the traced names are checked against the filter as systemd applies it (lines in order:
# the first allow list sets the default, later `~` lines remove, later plain lines add; groups
# expanded with `systemd-analyze syscall-filter`). A name outside the set fails the test.
# Usage: check_syscall_filter.sh JETCHAR UNIT_DIR SOURCE_DIR   (exit 77 = skipped: no strace)
set -euo pipefail
jetchar=$1 unit_dir=$2 source_dir=$3

if ! command -v strace >/dev/null; then
  echo "SKIP: strace is not installed (apt-get install strace); the syscall filter is NOT checked" >&2
  exit 77
fi
command -v systemd-analyze >/dev/null || { echo "systemd-analyze not found" >&2; exit 1; }
[[ -x $jetchar ]] || { echo "$jetchar is not built (cmake --build <dir> --target jetchar)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Expands a filter item (a @group or a name) into names, recursively.
declare -A group_cache
expand() {
  local item=$1 line out=()
  if [[ $item != @* ]]; then echo "$item"; return; fi
  if [[ -z ${group_cache[$item]:-} ]]; then
    while read -r line; do
      [[ -z $line || $line == \#* || $line == "$item" ]] && continue
      out+=("$(expand "${line%% *}")")
    done < <(systemd-analyze syscall-filter --no-pager "$item" | tail -n +2)
    group_cache[$item]=$(printf '%s\n' "${out[@]}" | sort -u)
  fi
  echo "${group_cache[$item]}"
}

# The set a unit allows (it must start with an allow list, as both units do).
allowed() {
  local unit=$1 value first=1 item
  declare -A set=()
  while IFS= read -r value; do
    local deny=0
    if [[ $value == ~* ]]; then deny=1; value=${value#\~}; fi
    if [[ $first -eq 1 && $deny -eq 1 ]]; then echo "$unit: starts with a deny list; this check expects an allow list" >&2; return 1; fi
    first=0
    for item in $value; do
      while read -r name; do
        [[ -z $name ]] && continue
        if [[ $deny -eq 1 ]]; then unset "set[$name]"; else set[$name]=1; fi
      done < <(expand "$item")
    done
  done < <(sed -n 's/^SystemCallFilter=//p' "$unit")
  [[ ${#set[@]} -gt 0 ]] || { echo "$unit has no SystemCallFilter=" >&2; return 1; }
  printf '%s\n' "${!set[@]}" | sort -u
}

# System call names from `strace -c` summaries (rows end with the name; skip header and total).
traced() { awk '$1 ~ /^[0-9.]+$/ && $NF ~ /^[a-z_0-9]+$/ && $NF != "total" {print $NF}' "$@" | sort -u; }

trace() { local out=$1; shift; strace -f -qq -c -o "$out" "$@"; }

# A small sweep on a persistent simulated AGX Orin: two GPU clocks (mode changes through the
# control session), one loader worker, the page cache evicted every epoch.
board=$work/board
"$jetchar" device modes --board sim:agx-orin-r36 --root "$board" >/dev/null
cat > "$work/sweep.textproto" <<EOF
name: "syscall-filter"
board: "sim:agx-orin-r36"
base {
  workload {
    model: "lenet5"
    dataset: "fashion-mnist:/usr/share/datasets/fashion-mnist"
    batch_size: 32
    epochs: 2
    max_minibatches: 5
    device: "cpu"
  }
  loader { workers: 1 }
  device { cpu_freq_mhz: 1728 dvfs: OFF }
  measurement { sample_rate_hz: 50 }
}
axes { field: "device.gpu_freq_mhz" values: ["306", "612"] }
axes { field: "cache" values: ["EVICT_EVERY_EPOCH"] }
EOF
if [[ ! -d /usr/share/datasets/fashion-mnist ]]; then
  # Without files on disk the page-cache calls (mincore, fadvise) are not exercised: say so.
  echo "note: /usr/share/datasets/fashion-mnist absent; synthetic data, page-cache calls not traced" >&2
  sed -i 's|dataset: ".*"|dataset: "synthetic:1x28x28?samples=320\&classes=10"|' "$work/sweep.textproto"
fi
trace "$work/sweep.strace" "$jetchar" sweep run "$work/sweep.textproto" --board sim:agx-orin-r36 --root "$board" \
  --results "$work/results" > "$work/sweep.log" 2>&1 ||
  { cat "$work/sweep.log" >&2; echo "the traced sweep failed" >&2; exit 1; }
grep -q '2 of 2 runs stored' "$work/sweep.log" || { cat "$work/sweep.log" >&2; echo "the sweep did not store 2 runs" >&2; exit 1; }
trace "$work/sweep-stop.strace" "$jetchar" device restore --board sim:agx-orin-r36 --root "$board" > /dev/null

"$jetchar" device set --board sim:agx-orin-r36 --root "$board" --cpu-cores 4 --gpu-freq 612 --dvfs off > /dev/null 2>&1
trace "$work/restore.strace" "$jetchar" device restore --board sim:agx-orin-r36 --root "$board" > "$work/restore.log" 2>&1
grep -q 'restored [1-9][0-9]* attributes' "$work/restore.log" || { cat "$work/restore.log" >&2; echo "device restore restored nothing" >&2; exit 1; }

status=0
check() {
  local unit=$1; shift
  local used denied
  used=$(traced "$@")
  [[ $(wc -l <<<"$used") -gt 20 ]] || { echo "$unit: strace saw only $(wc -l <<<"$used") calls" >&2; status=1; return; }
  denied=$(comm -23 <(echo "$used") <(allowed "$unit_dir/$unit"))
  if [[ -n $denied ]]; then
    echo "$unit: jetchar calls what SystemCallFilter= refuses: $(echo $denied)" >&2
    status=1
  else
    echo "$unit: all $(wc -l <<<"$used") traced system calls are allowed"
  fi
}
check jetchar-sweep@.service "$work/sweep.strace" "$work/sweep-stop.strace"
check jetchar-restore.service "$work/restore.strace"
exit $status
