# shellcheck shell=bash
# Sourced by bench/torchserve/*.sh: sets PROJECT_VENV to qinfer's venv (the
# one deploy/setup.sh makes, with torch and numpy) or fails.
#
#   QINFER_PROJECT_VENV  if set, that venv; otherwise <repo>/.venv, and in a
#                        git worktree without one (.venv is not tracked), the
#                        main checkout's .venv.
# Expects REPO (the repository root) and a die function.
PROJECT_VENV=${QINFER_PROJECT_VENV:-}
if [[ -z $PROJECT_VENV ]]; then
  PROJECT_VENV=$REPO/.venv
  if [[ ! -x $PROJECT_VENV/bin/python ]] &&
     _common=$(git -C "$REPO" rev-parse --path-format=absolute --git-common-dir 2>/dev/null) &&
     [[ -x $(dirname "$_common")/.venv/bin/python ]]; then
    PROJECT_VENV=$(dirname "$_common")/.venv
  fi
  unset _common
fi
[[ -x $PROJECT_VENV/bin/python ]] ||
  die "no project venv at $PROJECT_VENV (run deploy/setup.sh --no-build, or set QINFER_PROJECT_VENV)"
