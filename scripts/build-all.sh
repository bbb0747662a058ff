#!/usr/bin/env bash
# Corpus to a served deployment in one go: extract typed triples, build entailment graphs, index evidence.
#
#   scripts/build-all.sh CORPUS [OUT [GRAPH-OPTION...]]
#
#   CORPUS   corpus file or folder (.sgm Reuters, .jsonl articles)
#   OUT      work folder for the triples dataset (default out/build); graphs and store default under it
#   GRAPH-OPTION  passed to `egqa graph build`, e.g. `--min-predicates-per-pair 2` for a small corpus
#
# The same EGQA_* variables the service reads say where the results go, so a builder and a service
# given one environment agree (docker-compose.yml shares it between them):
#   EGQA_GRAPHS_DIR   graph set folder          (default OUT/graphs)
#   EGQA_STORE_URL    evidence store            (default sqlite:///OUT/evidence.db)
#   EGQA_WINDOW_DAYS  context window length     (default: egqa extract's, the service's default too)
# Re-running is safe: extraction resumes, graphs are rebuilt, indexing adds nothing twice.
set -euo pipefail

if [[ $# -lt 1 || "$1" == -h || "$1" == --help ]]; then
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
CORPUS="$1"
OUT="${2:-out/build}"
graph_options=("${@:3}")
GRAPHS="${EGQA_GRAPHS_DIR:-$OUT/graphs}"
STORE="${EGQA_STORE_URL:-sqlite:///$OUT/evidence.db}"
window=()
[[ -n "${EGQA_WINDOW_DAYS:-}" ]] && window=(--window-days "$EGQA_WINDOW_DAYS")

if [[ ! -e "$CORPUS" ]]; then
  echo "error: corpus $CORPUS not found" >&2
  exit 2
fi
mkdir -p "$OUT"

echo "== 1/3 extracting typed triples from $CORPUS into $OUT/triples =="
egqa extract "$CORPUS" --out "$OUT/triples" "${window[@]}"
echo "== 2/3 building entailment graphs into $GRAPHS =="
egqa graph build "$OUT/triples" --out "$GRAPHS" --overwrite "${graph_options[@]}"
echo "== 3/3 indexing evidence into $STORE =="
egqa index "$OUT/triples" --store "$STORE"
echo "done: serve with EGQA_GRAPHS_DIR=$GRAPHS EGQA_STORE_URL=$STORE egqa serve"
