#!/usr/bin/env bash
# Prints the revision CI's changed-file checks (scripts/format.sh, scripts/lint.sh) compare against:
# the commits after it are the ones being tested.
#   1. $JETCHAR_CI_BASE, when the CI system knows the last commit it tested (a push's "before").
#   2. On a branch that has left origin's main: where it left it, so the whole branch is checked.
#   3. Otherwise HEAD~1: a clean clone of main tests its newest commit.
# Prints nothing when HEAD has no parent (every file is then "changed"); callers check all files.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -n ${JETCHAR_CI_BASE:-} ]]; then
  git rev-parse --verify --quiet "${JETCHAR_CI_BASE}^{commit}" || {
    echo "ci-base.sh: JETCHAR_CI_BASE='$JETCHAR_CI_BASE' is not a commit of this repository" >&2; exit 2; }
  exit 0
fi
for upstream in origin/main origin/HEAD; do
  if git rev-parse --verify --quiet "$upstream" >/dev/null; then
    fork=$(git merge-base HEAD "$upstream" || true)
    if [[ -n $fork && $fork != "$(git rev-parse HEAD)" ]]; then
      echo "$fork"; exit 0
    fi
    break
  fi
done
git rev-parse --verify --quiet HEAD~1 || true
