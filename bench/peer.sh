#!/usr/bin/env bash
# The engine benchmark with the peer engine belote-cli timed in the same run,
# in a throwaway virtual environment (belote-cli is never a project dependency).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv bench/.venv-peer
bench/.venv-peer/bin/pip install --quiet belote-cli
PYTHONPATH=bench bench/.venv-peer/bin/python bench/engine_bench.py --peer "$@"
