#!/usr/bin/env bash
# The main job, end to end: extract -> graphs -> index -> serve -> benchmark -> evaluate over HTTP.
# Corpus: the first argument, else $EGQA_CORPUS, else ../shared/data/reuters21578 when present, else download.
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS="${1:-${EGQA_CORPUS:-}}"
if [ -z "$CORPUS" ] && [ -d ../shared/data/reuters21578 ]; then
  CORPUS=../shared/data/reuters21578
fi
exec egqa demo ${CORPUS:+"$CORPUS"} --out "${EGQA_OUT:-out/demo}"
