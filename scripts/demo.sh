#!/usr/bin/env bash
# The main job: extract a news corpus into typed triples and print the summary.
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS="${1:-${EGQA_CORPUS:-../shared/data/reuters21578}}"
OUT="${EGQA_OUT:-out/demo}"
if [ ! -e "$CORPUS" ]; then
  echo "error: corpus $CORPUS not found; pass CORPUS=path or set EGQA_CORPUS" >&2
  exit 2
fi
echo "== 1/1 extracting typed triples from $CORPUS into $OUT/triples (all cores) =="
egqa extract "$CORPUS" --out "$OUT/triples"
