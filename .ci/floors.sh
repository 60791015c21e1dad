#!/usr/bin/env bash
# The adapters' tests against the oldest framework versions pyproject.toml allows.
# A virtual environment that sees the current environment's packages gets the floor versions on
# top, so only the pinned frameworks are downloaded. Run after `pip install -e ".[all,test]"`.
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python -m venv "$work/venv"
py="$work/venv/bin/python"
# `--system-site-packages` would see the *base* interpreter's packages, not this environment's
# (CI runs inside a fresh venv): list this environment's site directories in a .pth file instead.
# They come after the new venv's own site-packages, so the pinned floors win.
"$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' >"$work/site"
python -c 'import site; print("\n".join(site.getsitepackages()))' \
  >"$(cat "$work/site")/_outer_env.pth"
pip_q() {  # quiet on success (the resolver warns about unrelated packages); all output on failure
  local out
  if ! out="$("$py" -m pip install -q --disable-pip-version-check "$@" 2>&1)"; then
    echo "$out"
    return 1
  fi
}
run() { PYTHONPATH=src "$py" -m pytest -n 2 -q -p no:cacheprovider "$@"; }

# 1. LangChain, LangGraph, Google ADK and the OpenAI Agents SDK at their floors.
# (langgraph-prebuilt is pinned to langgraph's release: newer 1.0.x need a newer langgraph.)
pip_q "langchain==1.2.9" "langchain-core==1.2.9" "langgraph==1.0.7" "langgraph-prebuilt==1.0.7" \
  "google-adk==2.10.0" "openai-agents==0.22.1" "openai==3.0.0"
"$py" -m pip list --disable-pip-version-check 2>/dev/null \
  | grep -i -E "^(langchain|langchain-core|langgraph|langgraph-prebuilt|google-adk|openai|openai-agents) "
# deepagents (a test-only dependency) needs a newer langchain than skillcore does.
run tests/langchain tests/adk tests/openai -k "not deep_agent"

# 2. The openai client at its floor (the Agents SDK needs a newer one, so its tests are left out).
pip_q "openai==1.109.1"
"$py" -c "import openai; print('openai', openai.__version__)"
# Test files that import the Agents SDK are found by their imports, so new ones are left out too.
ignores=()
for f in $(grep -l -E "^ *(from|import) agents\b" tests/openai/*.py); do ignores+=("--ignore=$f"); done
run tests/openai "${ignores[@]}"
