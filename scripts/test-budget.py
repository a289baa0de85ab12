#!/usr/bin/python3
"""Reads one ctest run's timings and holds them against the suite's budgets (docs/building.md).

Usage: test-budget.py JUNIT_XML LABELS_JSON [--wall SECONDS [--wall-budget SECONDS]] [--label-list FILE]
                      [--markdown]
  JUNIT_XML    what `ctest --output-junit` wrote for the run
  LABELS_JSON  what `ctest --show-only=json-v1` prints for the same build (each test's labels)
  --wall       the run's wall-clock time, held against the whole run's budget
  --wall-budget  that budget: 600 s for the whole suite (the default), 120 s for `--fast`
  --label-list tests/test_labels.cmake: a test it names that ctest does not define is reported
  --markdown   print the slowest tests as the table docs/building.md shows

Budgets: every test 30 s (the `slurm` test, a whole cluster started and crashed, 120 s); a module's
`unit` tests 60 s together; the whole run 600 s (`scripts/test.sh --fast`: 120 s). A test over 15 s
must carry the `slow` label, which `scripts/test.sh --fast` leaves out. Every figure over its
budget is printed; the exit status is 1 only when a test took more than three times its budget (a
loaded machine stretches every test a little, a test that grew stretches far more), 0 otherwise.
"""
import argparse
import collections
import json
import re
import sys
import xml.etree.ElementTree as ElementTree

TEST_BUDGET_S = 30.0
LABEL_BUDGET_S = {"slurm": 120.0}
MODULE_UNIT_BUDGET_S = 60.0
WHOLE_RUN_BUDGET_S = 600.0
SLOW_LABEL_FROM_S = 15.0
FAIL_FACTOR = 3.0
SLOWEST_SHOWN = 20


def labels_of(labels_json):
    with open(labels_json, encoding="utf-8") as f:
        tests = json.load(f)["tests"]
    labels = {}
    for test in tests:
        labels[test["name"]] = next(
            (p["value"] for p in test.get("properties", []) if p["name"] == "LABELS"), [])
    return labels


def timings_of(junit_xml):
    timings = {}
    for case in ElementTree.parse(junit_xml).getroot().iter("testcase"):
        if case.get("status") == "notrun" or case.find("skipped") is not None:
            continue
        timings[case.get("name")] = float(case.get("time", "0"))
    return timings


def budget_of(labels):
    return max([LABEL_BUDGET_S.get(label, TEST_BUDGET_S) for label in labels] or [TEST_BUDGET_S])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("junit_xml")
    parser.add_argument("labels_json")
    parser.add_argument("--wall", type=float)
    parser.add_argument("--wall-budget", type=float, default=WHOLE_RUN_BUDGET_S)
    parser.add_argument("--label-list")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()

    labels = labels_of(args.labels_json)
    timings = timings_of(args.junit_xml)
    if not timings:
        print(f"test budget: {args.junit_xml} holds no test that ran", file=sys.stderr)
        return 1
    slowest = sorted(timings.items(), key=lambda item: -item[1])

    if args.markdown:
        print("| test | labels | s |\n|---|---|---|")
        for name, seconds in slowest[:SLOWEST_SHOWN]:
            print(f"| `{name}` | {', '.join(labels.get(name, []))} | {seconds:.1f} |")
        return 0

    print(f"test budget: the {min(SLOWEST_SHOWN, len(slowest))} slowest of {len(timings)} tests that ran")
    for name, seconds in slowest[:SLOWEST_SHOWN]:
        print(f"  {seconds:7.1f} s  {name} [{', '.join(labels.get(name, []))}]")

    over, failing, unlabelled = [], [], []
    for name, seconds in slowest:
        test_labels = labels.get(name, [])
        budget = budget_of(test_labels)
        if seconds > budget:
            over.append(f"  {name}: {seconds:.1f} s, budget {budget:.0f} s")
        if seconds > FAIL_FACTOR * budget:
            failing.append(name)
        if seconds > SLOW_LABEL_FROM_S and "slow" not in test_labels:
            unlabelled.append(f"  {name}: {seconds:.1f} s without the label slow")
    unit_by_module = collections.defaultdict(float)
    for name, seconds in timings.items():
        if "unit" in labels.get(name, []):
            unit_by_module[name.split(".", 1)[0]] += seconds
    for module, seconds in sorted(unit_by_module.items()):
        if seconds > MODULE_UNIT_BUDGET_S:
            over.append(f"  {module}'s unit tests: {seconds:.1f} s together, budget {MODULE_UNIT_BUDGET_S:.0f} s")
    if args.wall is not None and args.wall > args.wall_budget:
        over.append(f"  the whole run: {args.wall:.0f} s, budget {args.wall_budget:.0f} s")

    if over:
        print("test budget: over budget:\n" + "\n".join(over))
    else:
        print("test budget: every test, module and the run within budget")
    if unlabelled:
        print("test budget: slower than 15 s and left in `scripts/test.sh --fast` (tests/test_labels.cmake):")
        print("\n".join(unlabelled))
    if args.label_list:
        with open(args.label_list, encoding="utf-8") as f:
            listed = re.findall(r"^\s+([A-Za-z0-9_.:/-]+)$", f.read(), re.MULTILINE)
        stale = [name for name in listed if name not in labels]
        if stale:
            print(f"test budget: {args.label_list} names tests that do not exist: {', '.join(stale)}")
    if failing:
        print(f"test budget: FAILED: {len(failing)} test(s) over {FAIL_FACTOR:.0f}x their budget: "
              f"{', '.join(failing)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
