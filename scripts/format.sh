#!/usr/bin/env bash
# Checks the C++ layout against .clang-format, or applies it.
#   scripts/format.sh                  check the lines changed since scripts/ci-base.sh (what CI runs)
#   scripts/format.sh --base REV       check the lines changed since REV (uncommitted changes included)
#   scripts/format.sh --all            check every tracked .cpp/.h, whole
#   scripts/format.sh FILE...          check these files, whole
#   scripts/format.sh --apply [...]    rewrite instead of checking, with any of the forms above
# Exit status: 0 when the checked lines are formatted, 1 when not (the diff that would fix them is
# printed), 2 for bad usage or a missing tool. Results depend on the clang-format version: CI and
# scripts/install-deps.sh use Debian 12's (14).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 2; }
apply=0 all=0 base="" base_given=0 files=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --apply) apply=1 ;;
    --all) all=1 ;;
    --base) [[ $# -ge 2 ]] || { echo "format.sh: --base needs a revision" >&2; usage; }
            base=$2; base_given=1; shift ;;
    -h|--help) usage ;;
    -*) echo "format.sh: unknown option '$1'" >&2; usage ;;
    *) files+=("$1") ;;
  esac
  shift
done
command -v clang-format >/dev/null || { echo "format.sh: clang-format is not installed (scripts/install-deps.sh)" >&2; exit 2; }
for f in "${files[@]}"; do
  [[ -f $f ]] || { echo "format.sh: '$f' is not a file" >&2; exit 2; }
done

whole_files() {
  local status=0 f
  for f in "$@"; do
    if [[ $apply == 1 ]]; then
      clang-format -i "$f"
    elif ! clang-format "$f" | diff -u --label "$f" --label "$f (formatted)" "$f" -; then
      status=1
    fi
  done
  return $status
}

if [[ $all == 1 ]]; then
  mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.cc' '*.hpp')
fi
if [[ ${#files[@]} -gt 0 ]]; then
  if whole_files "${files[@]}"; then exit 0; fi
  echo "format.sh: the files above are not formatted; scripts/format.sh --apply FILE... formats them" >&2
  exit 1
fi

# The lines changed since a base revision: git clang-format formats only those.
if [[ $base_given == 0 ]]; then
  base=$(scripts/ci-base.sh)
  if [[ -z $base ]]; then
    echo "format.sh: HEAD has no parent; checking every file" >&2
    extra=(); [[ $apply == 1 ]] && extra=(--apply)
    exec "$0" --all "${extra[@]}"
  fi
fi
git rev-parse --verify --quiet "${base}^{commit}" >/dev/null || {
  echo "format.sh: base '$base' is not a commit of this repository" >&2; exit 2; }
if [[ $apply == 1 ]]; then
  git clang-format --force --extensions cpp,h,cc,hpp "$base"
  exit 0
fi
out=$(git clang-format --diff --extensions cpp,h,cc,hpp "$base")
if [[ $out == diff* ]]; then
  printf '%s\n' "$out"
  echo "format.sh: lines changed since $(git rev-parse --short "$base") are not formatted; scripts/format.sh --apply --base $base fixes them" >&2
  exit 1
fi
echo "format.sh: lines changed since $(git rev-parse --short "$base") are formatted"
