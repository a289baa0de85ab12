#!/usr/bin/env bash
# scripts/test-budget.py on the two files a ctest run leaves (JUnit XML and the test list with its
# labels), written here in ctest's own formats: a run within budget passes; a test over its
# budget, a module's unit tests over theirs, a slow test without the label and a long run are
# named but pass; a test over 3x its budget fails the check, and the `slurm` label's own budget
# applies; a label list naming a test that does not exist is reported. Usage: test_budget_test.sh SOURCE_DIR
set -uo pipefail

CHECK="$1/scripts/test-budget.py"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; cat "$T/out" >&2; exit 1; }

# junit NAME=SECONDS...: a JUnit file as `ctest --output-junit` writes it.
junit() {
  echo '<?xml version="1.0" encoding="UTF-8"?>'
  echo '<testsuite name="(empty)" tests="2" failures="0" disabled="0" skipped="0" time="0">'
  for pair in "$@"; do
    echo "  <testcase name=\"${pair%%=*}\" classname=\"${pair%%=*}\" time=\"${pair#*=}\" status=\"run\"></testcase>"
  done
  echo '  <testcase name="m.Skipped" classname="m.Skipped" time="500" status="run"><skipped/></testcase>'
  echo '</testsuite>'
}
# tests NAME=LABEL[,LABEL]...: the test list as `ctest --show-only=json-v1` prints it.
tests() {
  local sep=""
  printf '{"kind":"ctestInfo","version":{"major":1,"minor":0},"tests":['
  for pair in "$@"; do
    local labels="\"${pair#*=}\""
    printf '%s{"name":"%s","properties":[{"name":"LABELS","value":[%s]}]}' "$sep" "${pair%%=*}" "${labels//,/\",\"}"
    sep=","
  done
  printf ']}\n'
}
run() { "$CHECK" "$T/junit.xml" "$T/tests.json" "$@" >"$T/out" 2>&1; }

tests m.A=unit m.B=integration,slow m.C=unit m.Skipped=unit cli.slurm=slurm,slow >"$T/tests.json"

junit m.A=0.5 m.B=12 m.C=1 cli.slurm=100 >"$T/junit.xml"
run --wall 200 || fail "a run within budget failed the check"
grep -q "every test, module and the run within budget" "$T/out" || fail "a run within budget is not said to be"
grep -q "m.Skipped" "$T/out" && fail "a skipped test counted"

junit m.A=31 m.B=45 m.C=40 cli.slurm=130 >"$T/junit.xml"
run --wall 700 || fail "tests under 3x their budget failed the check"
for named in "m.A: 31.0 s, budget 30 s" "m.B: 45.0 s" "cli.slurm: 130.0 s, budget 120 s" \
  "m's unit tests: 71.0 s together, budget 60 s" "the whole run: 700 s, budget 600 s" \
  "m.A: 31.0 s without the label slow"; do
  grep -qF "$named" "$T/out" || fail "the report does not name '$named'"
done
grep -q "m.B: 45.0 s without" "$T/out" && fail "a test labelled slow is reported as unlabelled"

junit m.A=0.5 m.B=91 m.C=1 cli.slurm=100 >"$T/junit.xml"
run && fail "a test over 3x its budget passed the check"
grep -q "FAILED: 1 test(s) over 3x their budget: m.B" "$T/out" || fail "the failing test is not named"

junit m.A=0.5 m.B=1 cli.slurm=300 >"$T/junit.xml"
run || fail "the slurm test under 3x its own budget failed the check"

run --wall 150 --wall-budget 120 || fail "a long fast run failed the check"
grep -q "the whole run: 150 s, budget 120 s" "$T/out" || fail "--wall-budget is not the budget"
printf 'set(_list\n  m.A\n  m.Gone\n)\n' >"$T/labels.cmake"
run --label-list "$T/labels.cmake" || fail "a stale label list failed the check"
grep -q "names tests that do not exist: m.Gone$" "$T/out" || fail "a stale name in the label list is not reported"
echo PASS
