#!/usr/bin/env bash
# The core's tests with the core's own dependencies alone (no framework, no optional extra):
# a core test that needs an extra must skip, not fail. Run from .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
py="$work/venv/bin/python"
"$py" -m pip install -q --disable-pip-version-check -e . "pytest>=8" "pytest-xdist>=3" "hypothesis>=6.100"
"$py" -m pytest -n 2 -q -p no:cacheprovider tests/core
