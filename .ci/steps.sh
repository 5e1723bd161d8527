# Steps with timings, for .ci/run (sourced, not run).
#
#   step "name"      ends the step before it, printing how long it took, and begins "name"
#   at_exit CMD...   runs CMD (a function name and its arguments) when the script exits
#
# On exit, whether the script succeeds, fails under `set -e` or is interrupted, the last step's
# time is printed, the hooks run in the order they were added, and a table of every step's time
# and the total ends the output. The script's exit status is kept.

_step_names=()
_step_seconds=()
_step_status=()
_step_current=""
_step_started=0
_steps_started=$(date +%s)
_exit_hooks=()

_step_duration() {
  local seconds=$1
  if ((seconds >= 60)); then
    printf '%dm%02ds' $((seconds / 60)) $((seconds % 60))
  else
    printf '%ds' "$seconds"
  fi
}

# Prints what the build directory holds and what the disk has left: CI's disk is finite.
_step_disk() {
  local used free
  used=$( (du -sh target 2>/dev/null || true) | cut -f1)
  free=$( (df -h . 2>/dev/null || true) | awk 'NR == 2 { print $4 }')
  printf '    disk: target/ holds %s, %s free\n' "${used:-nothing}" "${free:-?}"
}

# Records the current step, if any, with the status given (ok or failed).
_step_end() {
  [ -n "$_step_current" ] || return 0
  local elapsed=$(($(date +%s) - _step_started))
  _step_names+=("$_step_current")
  _step_seconds+=("$elapsed")
  _step_status+=("$1")
  printf '<== %s: %s (%s)\n' "$_step_current" "$1" "$(_step_duration "$elapsed")"
  _step_disk
  _step_current=""
}

step() {
  _step_end ok
  _step_current="$*"
  _step_started=$(date +%s)
  printf '\n==> %s\n' "$*"
}

at_exit() {
  _exit_hooks+=("$*")
}

_steps_summary() {
  local status=$1 i width=4
  for i in "${!_step_names[@]}"; do
    ((${#_step_names[i]} > width)) && width=${#_step_names[i]}
  done
  printf '\n%-*s  %8s  %s\n' "$width" step time status
  for i in "${!_step_names[@]}"; do
    printf '%-*s  %8s  %s\n' "$width" "${_step_names[i]}" \
      "$(_step_duration "${_step_seconds[i]}")" "${_step_status[i]}"
  done
  printf '%-*s  %8s  %s\n' "$width" total "$(_step_duration $(($(date +%s) - _steps_started)))" \
    "$( ((status == 0)) && echo ok || echo "failed (exit $status)")"
}

_steps_on_exit() {
  local status=$? hook
  set +e
  trap - EXIT INT TERM
  if ((status == 0)); then _step_end ok; else _step_end "failed (exit $status)"; fi
  for hook in "${_exit_hooks[@]}"; do
    $hook
  done
  _steps_summary "$status"
  exit "$status"
}

trap _steps_on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
