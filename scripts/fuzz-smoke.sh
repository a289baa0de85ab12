#!/usr/bin/env bash
# Builds the fuzz preset (clang, libFuzzer, ASan + UBSan) and runs every fuzz target for a few
# seconds from its stored seeds: what CI runs. A crash, a sanitizer report, a leak or an input
# slower than 10 s fails it; the input is kept under build/fuzz/artifacts/ for a rerun
# (`build/fuzz/fuzz/TARGET build/fuzz/artifacts/TARGET-crash-...`).
#   scripts/fuzz-smoke.sh [SECONDS] [TARGET...]    default: $JETCHAR_FUZZ_SECONDS or 4 s, every target
# Targets run one per core at a time ($JETCHAR_FUZZ_JOBS sets how many).
# Seeds: fuzz/seeds/TARGET, the board fixtures for jetson_manifest_fuzz and NVIDIA's confs for
# jetson_nvpmodel_fuzz (fuzz/README.md); a target without stored seeds starts from an empty input.
# Each run works on a copy, so the stored seeds never change.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${JETCHAR_FUZZ_SECONDS:-4}
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then seconds=$1; shift; fi
[[ $seconds -ge 1 ]] || { echo "fuzz-smoke.sh: seconds must be at least 1, not '$seconds'" >&2; exit 2; }
# libFuzzer runs one input at a time: one target per core at once.
jobs=${JETCHAR_FUZZ_JOBS:-$(nproc)}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "fuzz-smoke.sh: JETCHAR_FUZZ_JOBS must be a positive number, not '$jobs'" >&2; exit 2; }
command -v clang++ >/dev/null || { echo "fuzz-smoke.sh: clang++ is not installed (scripts/install-deps.sh)" >&2; exit 2; }

if [[ $# -gt 0 ]]; then targets=("$@"); else
  mapfile -t targets < <(for f in fuzz/*_fuzz.cpp; do basename "$f" .cpp; done)
fi
for t in "${targets[@]}"; do
  [[ -f fuzz/$t.cpp ]] || { echo "fuzz-smoke.sh: '$t' is not a fuzz target (fuzz/*_fuzz.cpp)" >&2; exit 2; }
done
scripts/build.sh fuzz --target "${targets[@]}"

seeds_of() {
  case $1 in
    jetson_manifest_fuzz) echo tests/fixtures/boards ;;
    jetson_nvpmodel_fuzz) echo tests/fixtures/nvpmodel ;;
    *) [[ -d fuzz/seeds/$1 ]] && echo "fuzz/seeds/$1" ;;
  esac
  return 0
}
# UBSan only prints by default; a finding must end the run so it fails CI.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
artifacts=build/fuzz/artifacts
mkdir -p "$artifacts"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# run_target TARGET: one target's run from a copy of its seeds; its report goes to $work/TARGET.result
# (first line "ok" or "FAILED"), so that runs on every core print in the targets' order.
run_target() {
  local t=$1 corpus="$work/$1" seeds count start runs ms
  mkdir -p "$corpus"
  seeds=$(seeds_of "$t")
  # Regular files only, flattened (the board fixtures are folders of files).
  [[ -n $seeds ]] && find "$seeds" -type f -exec cp --backup=numbered -t "$corpus" {} +
  count=$(find "$corpus" -type f | wc -l)
  start=$(date +%s%N)
  if build/fuzz/fuzz/"$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$artifacts/$t-" "$corpus" >"$work/$t.log" 2>&1; then
    runs=$(grep -oE '#[0-9]+' "$work/$t.log" | tail -1 | tr -d '#')
    ms=$((($(date +%s%N) - start) / 1000000))
    { echo ok
      printf 'fuzz-smoke: %-40s ok  %4d seeds, %8s inputs in %d.%d s\n' "$t" "$count" "${runs:-?}" $((ms / 1000)) $((ms % 1000 / 100))
    } >"$work/$t.result"
  else
    { echo FAILED; tail -40 "$work/$t.log"; echo "fuzz-smoke: $t FAILED (input under $artifacts/)"; } >"$work/$t.result"
  fi
}
running=0
for t in "${targets[@]}"; do
  # A run that failed is judged from its report below, not here.
  if ((running >= jobs)); then wait -n || true; running=$((running - 1)); fi
  run_target "$t" &
  running=$((running + 1))
done
wait
failed=()
for t in "${targets[@]}"; do
  [[ $(head -1 "$work/$t.result") == ok ]] || failed+=("$t")
  tail -n +2 "$work/$t.result" 2>/dev/null || echo "fuzz-smoke: $t ended without a report"
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz-smoke: ${#failed[@]} of ${#targets[@]} targets failed: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz-smoke: ${#targets[@]} targets, ${seconds} s each, no findings"
