#!/usr/bin/env bash
# One install path for every caller (make, CI, the container image): system packages, then egqa itself.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
EXTRAS="${EGQA_EXTRAS:-dev}"

# WordNet 3.0 for the benchmark builder (read with NLTK); Java + Maven run a real Elasticsearch in tests.
need_apt=()
[ -f /usr/share/wordnet/data.noun ] || need_apt+=(wordnet-base)
[ -d /usr/share/wordnet ] && ls /usr/share/wordnet/index.sense >/dev/null 2>&1 || need_apt+=(wordnet-sense-index)
if [ "${#need_apt[@]}" -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "installing Debian packages: ${need_apt[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "warning: WordNet missing; install with: sudo apt-get install -y wordnet-base wordnet-sense-index" >&2
  fi
fi

"$PYTHON" -m pip install --quiet --disable-pip-version-check -e ".[${EXTRAS}]"
echo "egqa installed: $(command -v egqa)"
