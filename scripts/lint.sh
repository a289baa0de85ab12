#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy) with a build's compile_commands.json.
#   scripts/lint.sh                    the .cpp/.h changed since scripts/ci-base.sh's revision (what CI runs)
#   scripts/lint.sh --base REV         the .cpp/.h changed since REV (uncommitted changes included)
#   scripts/lint.sh --all              every translation unit of the build but the LibTorch ones
#   scripts/lint.sh FILE...            these files
# Options: -p BUILD_DIR (default build/release; its generated headers must exist, so build it first:
# scripts/build.sh release), -j N (parallel clang-tidy processes, default: cores), --torch (also tidy
# translation units that include LibTorch; clang 14 cannot parse LibTorch 1.13's headers as C++20,
# so each of them ends in clang-diagnostic-error: see loaders/CMakeLists.txt).
# A header is checked through its own .cpp, or else through one .cpp that includes it. For changed
# files, findings are reported in those files only, not in unchanged headers they include.
# Exit status: 0 no finding, 1 findings (every check is an error, .clang-tidy's WarningsAsErrors),
# 2 bad usage, a missing tool or a build without compile_commands.json.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 2; }
build=build/release jobs=$(nproc) base="" base_given=0 all=0 torch=0 changed_only=0 files=()
while [[ $# -gt 0 ]]; do
  case $1 in
    -p) [[ $# -ge 2 ]] || usage; build=$2; shift ;;
    -j) [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || { echo "lint.sh: -j needs a positive number" >&2; usage; }
        jobs=$2; shift ;;
    -j[1-9]*) [[ ${1#-j} =~ ^[0-9]+$ ]] || { echo "lint.sh: -j needs a positive number, not '${1#-j}'" >&2; usage; }
        jobs=${1#-j} ;;
    --base) [[ $# -ge 2 ]] || usage; base=$2; base_given=1; shift ;;
    --all) all=1 ;;
    --torch) torch=1 ;;
    -h|--help) usage ;;
    -*) echo "lint.sh: unknown option '$1'" >&2; usage ;;
    *) files+=("$1") ;;
  esac
  shift
done
command -v clang-tidy >/dev/null || { echo "lint.sh: clang-tidy is not installed (scripts/install-deps.sh)" >&2; exit 2; }
db="$build/compile_commands.json"
[[ -f $db ]] || { echo "lint.sh: $db does not exist; configure and build first (scripts/build.sh release)" >&2; exit 2; }

# The translation units the build compiles, relative to the source root, and each one's object.
mapfile -t units < <(python3 - "$db" "$PWD" <<'PY'
import json, sys, re
root = sys.argv[2].rstrip('/') + '/'
for entry in json.load(open(sys.argv[1])):
    f = entry['file']
    if not f.startswith(root):
        continue  # generated sources (protobuf) live in the build folder
    m = re.search(r'-o (\S+)', entry['command'])
    # A precompiled header of LibTorch's (jetchar_use_torch), not only of GoogleTest's (the tests').
    pch = re.search(r'-include (\S*cmake_pch\.hxx)', entry['command'])
    torch = pch and re.search(r'<(torch|ATen|c10)/', open(pch.group(1)).read())
    print(f[len(root):], m.group(1) if m else '', 'pch' if torch else '-', sep='\t')
    # A unity unit's sources (compiled eight at a time) are units of their own, LibTorch's where
    # the unit's precompiled header is.
    if re.search(r'/Unity/unity_[0-9]+_cxx\.cxx$', f):
        for source in re.findall(r'#include "([^"]+)"', open(f).read()):
            if source.startswith(root):
                print(source[len(root):], m.group(1) if m else '', 'pch' if torch else '-', sep='\t')
PY
)
declare -A object=() pch=()
for line in "${units[@]}"; do
  IFS=$'\t' read -r f o p <<<"$line"
  object[$f]=$o; pch[$f]=$p
done

header_filter=""
if [[ $all == 1 ]]; then
  files=("${!object[@]}")
elif [[ ${#files[@]} -eq 0 ]]; then
  if [[ $base_given == 0 ]]; then base=$(scripts/ci-base.sh); fi
  if [[ -z $base ]]; then
    files=("${!object[@]}")
  else
    git rev-parse --verify --quiet "${base}^{commit}" >/dev/null || {
      echo "lint.sh: base '$base' is not a commit of this repository" >&2; exit 2; }
    mapfile -t files < <(git diff --name-only --diff-filter=ACMR "$base" -- '*.cpp' '*.h')
    [[ ${#files[@]} -gt 0 ]] || { echo "lint.sh: no C++ file changed since $(git rev-parse --short "$base")"; exit 0; }
    changed_only=1
  fi
fi

# Files to translation units; the headers among them become the header filter.
declare -A chosen=()
changed_headers=()
for f in "${files[@]}"; do
  [[ -f $f ]] || { echo "lint.sh: '$f' is not a file" >&2; exit 2; }
  f=$(realpath --relative-to=. "$f")
  case $f in
    *.h)
      changed_headers+=("$f")
      if [[ -n ${object[${f%.h}.cpp]:-} ]]; then
        chosen[${f%.h}.cpp]=1
      else
        includer=$(grep -lF "#include \"$f\"" "${!object[@]}" 2>/dev/null | head -1 || true)
        if [[ -n $includer ]]; then chosen[$includer]=1
        else echo "lint.sh: $f: no translation unit of $build includes it; not checked" >&2; fi
      fi ;;
    *)
      if [[ -n ${object[$f]:-} ]]; then chosen[$f]=1
      else echo "lint.sh: $f is not compiled by $build (not in its compile_commands.json); not checked" >&2; fi ;;
  esac
done
if [[ $changed_only == 1 ]]; then
  # Only the changed files' findings: a change is not failed for an older finding in a header it includes.
  header_filter='^$'
  if [[ ${#changed_headers[@]} -gt 0 ]]; then
    header_filter=$(printf '%s\n' "${changed_headers[@]}" | sed 's/[.]/[.]/g; s/^/\//' | paste -sd'|')
  fi
fi

# LibTorch translation units: those whose precompiled header holds LibTorch's (jetchar_use_torch), and
# those whose headers, by ninja's dependency log, include it (a unit not built yet has no log).
uses_torch() {
  [[ ${pch[$1]} == pch ]] && return 0
  local deps
  deps=$(ninja -C "$build" -t deps "${object[$1]}" 2>/dev/null || true)
  grep -qE '/(torch|ATen|c10)/' <<<"$deps"
}
todo=() skipped=()
for f in "${!chosen[@]}"; do
  if [[ $torch == 0 ]] && uses_torch "$f"; then skipped+=("$f"); else todo+=("$f"); fi
done
if [[ ${#skipped[@]} -gt 0 ]]; then
  echo "lint.sh: ${#skipped[@]} LibTorch translation unit(s) not checked (clang cannot parse LibTorch; --torch tries): ${skipped[*]}" >&2
fi
[[ ${#todo[@]} -gt 0 ]] || { echo "lint.sh: nothing to check"; exit 0; }

# clang reads GCC's precompiled GoogleTest header (cmake_pch.hxx.gch) for `-include cmake_pch.hxx` and
# fails on it: the commands clang-tidy gets leave that include out (each test includes its headers).
# A unity unit's sources get its command each, with the source in place of the unit.
tidy_db=$(mktemp -d)
trap 'rm -rf "$tidy_db"' EXIT
python3 - "$db" "$tidy_db/compile_commands.json" <<'PY'
import json, re, sys
entries = json.load(open(sys.argv[1]))
for entry in list(entries):
    entry['command'] = re.sub(r' -Winvalid-pch| -include \S*cmake_pch\.hxx', '', entry['command'])
    unit = entry['file']
    if re.search(r'/Unity/unity_[0-9]+_cxx\.cxx$', unit):
        for source in re.findall(r'#include "([^"]+)"', open(unit).read()):
            entries.append({**entry, 'file': source, 'command': entry['command'].replace(unit, source)})
json.dump(entries, open(sys.argv[2], 'w'))
PY
args=(-p "$tidy_db" --quiet --extra-arg=-Wno-unknown-warning-option)
[[ -n $header_filter ]] && args+=("--header-filter=$header_filter")
echo "lint.sh: clang-tidy on ${#todo[@]} translation unit(s), $jobs at a time" >&2
if printf '%s\n' "${todo[@]}" | sort | xargs -P "$jobs" -n 1 clang-tidy "${args[@]}" 2> >(grep -vE '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$|^Suppressed [0-9]+ warnings|^Use -header-filter|NOLINT|^$' >&2); then
  echo "lint.sh: no findings"
else
  echo "lint.sh: findings above (fix them, or say in .clang-tidy why a check is off)" >&2
  exit 1
fi
