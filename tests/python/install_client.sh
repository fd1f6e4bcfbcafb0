#!/usr/bin/env bash
# Installs clients/python from the repository into a fresh venv of its own
# and imports it: what a user of the client does, without the project venv.
#
#   tests/python/install_client.sh PROJECT_PYTHON VENV_DIR
#
# The venv is clean (no --system-site-packages: nothing of the project venv
# or the system leaks in). pip runs with --no-index: confluent-kafka,
# tokenizers and setuptools (the build backend) come from the wheel cache
# caches that deploy/setup.sh filled and named in <project venv>/.qinfer-python-wheels.
# The venv is made with the interpreter the project venv was made from.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
project_python=$1
venv=$2
marker=$(dirname "$project_python")/../.qinfer-python-wheels
if [[ ! -f $marker ]]; then
  echo "install_client.sh: no $marker: run deploy/setup.sh (it fills the wheel cache)" >&2
  exit 1
fi
links=()
while read -r dir; do links+=(--find-links "$dir"); done <"$marker"
base=$("$project_python" -c 'import sys; print(sys._base_executable)')
rm -rf "$venv"
"$base" -m venv "$venv"
# From a copy: building writes build/ and *.egg-info/ beside the sources.
cp -r "$REPO/clients/python" "$venv/client-src"
"$venv/bin/python" -m pip install --disable-pip-version-check -q --no-index "${links[@]}" \
  "$venv/client-src[text]"
# Import it from the fresh venv (not from the source tree: run outside it).
cd "$venv"
"$venv/bin/python" - <<'PY'
import sys
import confluent_kafka
import tokenizers
import qinfer_client
assert qinfer_client.__file__.startswith(sys.prefix), qinfer_client.__file__
assert not any("site-packages" in p and not p.startswith(sys.prefix) for p in sys.path), sys.path
# No broker needed: the unreachable-broker error must name the brokers.
try:
    qinfer_client.Client("127.0.0.1:1", connect_timeout=1).submit([[101, 102]])
except qinfer_client.QinferConnectionError as e:
    print("expected error:", e)
else:
    raise SystemExit("submit to an unreachable broker did not raise")
print(f"qinfer_client {qinfer_client.__version__} from {qinfer_client.__file__}; "
      f"confluent-kafka {confluent_kafka.version()[0]}, tokenizers {tokenizers.__version__}")
PY
