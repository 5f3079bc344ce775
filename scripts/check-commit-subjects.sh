#!/usr/bin/env bash
# Checks that new commits have subjects `area: what changed`, at most 72 characters, where
# area names a part of the repository (the list below). Only new commits are checked, so the
# history written before the rule stands as it is:
#   KEVAL_COMMIT_BASE=REV   the commits after REV (CI sets it to the branch's base);
#   otherwise               those after the merge-base with origin/main when that ref exists,
#                           else the last KEVAL_COMMIT_LAST (default 20) commits;
#   never                   the commits reachable from kFloor, the last one before the rule.
# Usage: scripts/check-commit-subjects.sh [REPO]  (default: the current directory)
set -euo pipefail
repo=${1:-.}
cd "$repo"

# The last commit written before the rule; older subjects are not checked.
kFloor=5512737e352c5fd1a1b4829a101ffafb08170995
kMaxLength=72

# Areas: the top-level folders, src/'s libraries, runner/'s packages and tests/'s suites (read
# from HEAD's tree, so a new folder is an area at once), and these, which are not folders.
kExtraAreas="ci make readme cmake"

areas() {
  local tree
  git ls-tree -d --name-only HEAD
  for tree in src runner tests; do
    git ls-tree -d --name-only "HEAD:$tree" 2>/dev/null || true
  done
  printf '%s\n' $kExtraAreas
}

if ! git rev-parse --verify -q HEAD >/dev/null; then
  echo "check-commit-subjects: $PWD has no commits" >&2
  exit 0
fi

if [ -n "${KEVAL_COMMIT_BASE:-}" ]; then
  if ! git rev-parse --verify -q "${KEVAL_COMMIT_BASE}^{commit}" >/dev/null; then
    echo "check-commit-subjects: KEVAL_COMMIT_BASE=$KEVAL_COMMIT_BASE is not a commit here" >&2
    exit 2
  fi
  range=("$KEVAL_COMMIT_BASE..HEAD")
elif git rev-parse --verify -q origin/main >/dev/null \
    && base=$(git merge-base HEAD origin/main 2>/dev/null); then
  range=("$base..HEAD")
else
  range=(-n "${KEVAL_COMMIT_LAST:-20}" HEAD)
fi
# A shallow clone may not hold the floor; then the range alone limits what is checked.
if git rev-parse --verify -q "${kFloor}^{commit}" >/dev/null; then
  range+=("^$kFloor")
fi

known=$(areas | sort -u)
bad=0
checked=0
while IFS=$'\t' read -r hash subject; do
  [ -n "$hash" ] || continue
  checked=$((checked + 1))
  problem=""
  if [ "${#subject}" -gt "$kMaxLength" ]; then
    problem="${#subject} characters, at most $kMaxLength"
  elif [[ ! "$subject" =~ ^([A-Za-z0-9_.,/\ -]+):\ [^[:space:]] ]]; then
    problem="not 'area: what changed'"
  else
    # One area or several ("docs, bench"); a path's first part names it ("docs/cli.md").
    IFS=',' read -ra named <<< "${BASH_REMATCH[1]}"
    for area in "${named[@]}"; do
      area=${area// /}
      area=${area%%/*}
      if [ -z "$area" ] || ! grep -qxF "$area" <<< "$known"; then
        problem="area '$area' is not one of: $(tr '\n' ' ' <<< "$known")"
        break
      fi
    done
  fi
  if [ -n "$problem" ]; then
    echo "check-commit-subjects: ${hash:0:10} \"$subject\": $problem" >&2
    bad=$((bad + 1))
  fi
done < <(git log --no-merges --format='%H%x09%s' "${range[@]}")

if [ "$bad" -gt 0 ]; then
  echo "check-commit-subjects: $bad of $checked new commits need another subject (reword them before they are pushed)" >&2
  exit 1
fi
echo "check-commit-subjects: $checked new commits, subjects fine"
