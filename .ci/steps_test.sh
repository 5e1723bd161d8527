#!/usr/bin/env bash
# Checks .ci/steps.sh without running CI: a passing run, a step failing under `set -e`, a
# failing pipeline and an interrupted run must each print every step's time and the total,
# run the exit hooks, and keep the exit status. Takes a few seconds.
set -uo pipefail
cd "$(dirname "$0")/.."
failures=0

# run NAME EXPECTED_STATUS BODY: runs BODY as a script that sources steps.sh.
run() {
  local name=$1 expected=$2 body=$3 output status
  output=$(bash -c "set -euo pipefail; source .ci/steps.sh; $body" 2>&1)
  status=$?
  shift 3
  local problems=()
  [ "$status" = "$expected" ] || problems+=("exit status $status, expected $expected")
  local needle
  for needle in "$@"; do
    grep -qF -- "$needle" <<<"$output" || problems+=("no line with: $needle")
  done
  if [ ${#problems[@]} -eq 0 ]; then
    echo "ok: $name"
  else
    failures=$((failures + 1))
    echo "FAILED: $name"
    printf '  %s\n' "${problems[@]}"
    sed 's/^/  | /' <<<"$output"
  fi
}

run "passing run" 0 '
  step one; sleep 1
  step two; true' \
  "==> one" "<== one: ok (1s)" "<== two: ok (0s)" "total" "ok"

run "no target/ yet" 0 '
  cd "$(mktemp -d)"
  step one; true' \
  "<== one: ok (0s)" "disk: target/ holds nothing" "total"

run "a step fails under set -e" 3 '
  hook() { echo "hook ran"; }
  at_exit hook
  step one
  step two; (exit 3); echo "not reached"' \
  "<== one: ok" "<== two: failed (exit 3)" "hook ran" "total"

run "a pipeline fails" 1 '
  step one; false | cat; echo "not reached"' \
  "<== one: failed (exit 1)" "total"

run "interrupted" 143 '
  step one; kill -TERM $$; sleep 5' \
  "<== one: failed (exit 143)" "total"

run "over a minute is shown in minutes" 0 '
  _step_duration 75; echo' \
  "1m15s"

if grep -q "not reached" <<<"$(bash -c 'set -euo pipefail; source .ci/steps.sh; step a; false; echo not reached' 2>&1)"; then
  echo "FAILED: set -e no longer stops the script"
  failures=$((failures + 1))
fi

[ "$failures" -eq 0 ] && echo "all passed" || { echo "$failures failed"; exit 1; }
