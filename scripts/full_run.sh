#!/usr/bin/env bash
# The whole pipeline on the whole 2006-2013 Reuters corpus (reuters_ding2014), one stage after another,
# resumable: a finished stage leaves OUT/.done-<stage> and is skipped on a re-run (delete the marker to redo
# it); `egqa extract` also resumes inside its own stage, shard by shard. Every stage is timed with
# /usr/bin/time -v (OUT/<stage>.time); the last step prints each stage's time and peak memory.
#
#   bash scripts/full_run.sh [CORPUS]          # or: make full
#
# Settings (environment): EGQA_FULL_OUT (default out/ding2014), EGQA_EVAL_FROM (first day of the evaluation
# period, default 2012-01-01), EGQA_FULL_ES=1 to also index and evaluate through a real Elasticsearch
# (scripts/elasticsearch.sh, port 9250), EGQA_FULL_PORT (service port, default 8765), EGQA_FROZEN_BENCHMARK
# (a fixed benchmark folder to evaluate as well, e.g. ../shared/data/booqa_ding2014_v4).
set -euo pipefail
cd "$(dirname "$0")/.."

CORPUS="${1:-../shared/data/reuters_ding2014/reuters_ding2014.jsonl.gz}"
OUT="${EGQA_FULL_OUT:-out/ding2014}"
EVAL_FROM="${EGQA_EVAL_FROM:-2012-01-01}"
PORT="${EGQA_FULL_PORT:-8765}"
ES_PORT=9250
LEVYHOLT=../shared/data/levyholt
BERANT=../shared/data/berant2011/original-edgelist.txt
SCORERS="${EGQA_FULL_SCORERS:-exact,cos,lin,weeds,binc,binc_clean,global,binc_clean+smooth,lm_cosine,berant,binc+lm,binc_clean+smooth+lm,binc_clean+smooth+lm+dir,binc+act,binc_clean+smooth+act+lm+dir,binc_lp,binc_clean_lp,binc_lp+lm,binc_clean_lp+smooth+lm,binc_clean+smooth+act+lm+dir+many,binc_clean_lp+many}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"

stage() {
  local name="$1"; shift
  if [ -e "$OUT/.done-$name" ]; then
    echo "== $name: done earlier (rm $OUT/.done-$name to redo)"
    return 0
  fi
  echo "== $name: $*"
  if declare -F "$1" > /dev/null; then  # a shell function: its programs time themselves; record the wall time
    local start=$SECONDS
    "$@"
    echo "Elapsed (wall clock) time (h:mm:ss or m:ss): $((SECONDS - start))s" > "$OUT/$name.time"
  else
    /usr/bin/time -v -o "$OUT/$name.time" "$@"
  fi
  touch "$OUT/.done-$name"
}

serve_and_evaluate() {  # NAME STORE_URL [BENCHMARK_DIR]: serve the store, evaluate dev and test over HTTP, stop
  local name="$1" store="$2" bench="${3:-$OUT/benchmark}" pid
  # Batches of 200 propositions over the whole evaluation store: allow a store call more than the 1 s default.
  EGQA_STORE_TIMEOUT="${EGQA_STORE_TIMEOUT:-30}" /usr/bin/time -v -o "$OUT/serve-$name.time" \
    egqa serve --graphs "$OUT/graphs" --store "$store" --port "$PORT" --extra-graphs "berant=$OUT/berant" \
    > "$OUT/serve-$name.log" 2>&1 &
  pid=$!
  trap 'pkill -TERM -P $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; trap - RETURN' RETURN
  for _ in $(seq 1 300); do
    curl -fsS "http://127.0.0.1:$PORT/ready" > /dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || { echo "service died; see $OUT/serve-$name.log"; return 1; }
    sleep 1
  done
  for split in dev test; do
    /usr/bin/time -v -o "$OUT/evaluate-$name-$split.time" \
      egqa evaluate "$bench/$split.jsonl" --url "http://127.0.0.1:$PORT" --scorer "$SCORERS" \
      --out "$OUT/eval-$name-$split"
  done
}

# 1. Typed triples from every article (TRAIN before EVAL_FROM, TEST from it on; exact duplicates dropped).
stage extract egqa extract "$CORPUS" --out "$OUT/triples" --eval-from "$EVAL_FROM"
# (egqa extract ends with these two; as stages of their own they are timed apart and re-runnable: one type per
#  name, then one canonical name per entity, always recomputed from the names as extracted.)
stage types egqa types "$OUT/triples"
stage entities egqa entities "$OUT/triples"
# 2. Entailment graphs from the graph-induction period only. Unpruned: on this corpus (11,751 nodes) the default
#    pruning (top 100 neighbours, min score 0.01) saves 8 MB and costs 2 AP_norm points (docs/graphs.md, "Graph pruning").
#    With the untyped set beside them (every argument of one type; the +untyped scorers back off to it; 5 min and
#    4 GB more on this corpus, docs/graphs.md "The untyped set").
stage graphs egqa graph build "$OUT/triples" --out "$OUT/graphs" --split TRAIN --overwrite --top-k 0 --min-score 0 \
  --measures binc,weeds,lin,cos,binc_clean,global,binc_lp,binc_clean_lp --untyped
# The untyped set's scorers, where the graphs stage built it (a run resumed from a graphs stage before it has none).
if [ -z "${EGQA_FULL_SCORERS:-}" ] && [ -e "$OUT/graphs/untyped/manifest.json" ]; then
  SCORERS="$SCORERS,binc+untyped,binc_clean+smooth+untyped+act+lm+dir,binc_clean_lp+untyped+many"
fi
# 3. Predicate embeddings for LM premise smoothing; Berant et al. (2011) rules as a graph set of their own.
stage embed egqa graph embed "$OUT/graphs"
stage berant egqa graph import "$BERANT" --format berant --out "$OUT/berant" --overwrite
# 4. The evidence store holds the evaluation period only.
stage index egqa index "$OUT/triples" --store "sqlite:///$OUT/evidence.db" --split TEST --replace
# 5. A BoOQA-style benchmark from the evaluation period, thresholds scaled to a 100k-article corpus
#    (paper: 15 articles, 15 predicates, 30 argument pairs, on a corpus with far more articles per window).
#    Builder v2: the replaced word's sense read in its sentence, hyponyms two levels down, one proposition per
#    predicate and label (docs/benchmark-builder.md).
stage benchmark egqa benchmark build "$OUT/triples" --out "$OUT/benchmark" \
  --min-pair-articles 2 --min-pair-predicates 2 --min-predicate-pairs 5 --max-positives 4000 \
  --hyponym-depth 2 --max-per-predicate 1
stage audit egqa benchmark audit "$OUT/benchmark"
# 6. Every scorer over HTTP on dev and test.
stage evaluate serve_and_evaluate sqlite "sqlite:///$OUT/evidence.db"
# Every scorer against BInc on the same bundles: paired differences with intervals, and the bundle contrast.
compare_all() {  # [NAME]: the evaluation eval-NAME-{dev,test} (default sqlite)
  local name="${1:-sqlite}" suffix=""
  [ "$name" = sqlite ] || suffix="-$name"
  for split in dev test; do
    egqa compare "$OUT/eval-$name-$split" --baseline binc --out "$OUT/compare$suffix-$split.json" \
      | tee "$OUT/compare$suffix-$split.txt"
  done
}
stage compare compare_all
# 6b. A fixed benchmark as well (EGQA_FROZEN_BENCHMARK: a folder with dev.jsonl and test.jsonl built from the
#     same corpus), so that a change to extraction, entities or graphs is compared on the same propositions.
if [ -n "${EGQA_FROZEN_BENCHMARK:-}" ]; then
  stage evaluate-frozen serve_and_evaluate frozen "sqlite:///$OUT/evidence.db" "$EGQA_FROZEN_BENCHMARK"
  stage compare-frozen compare_all frozen
fi
# 6c. The combined scorer fitted on the dev split's answers (written to graphs/combined.json), and scored on the
#     held-out splits exactly as the service will score them (docs/metrics-and-scorers.md).
combine() {
  local checks=(--check "$OUT/eval-sqlite-test")
  if [ -n "${EGQA_FROZEN_BENCHMARK:-}" ]; then
    checks+=(--check "$OUT/eval-frozen-dev" --check "$OUT/eval-frozen-test")
  fi
  egqa graph combine "$OUT/eval-sqlite-dev" --graphs "$OUT/graphs" "${checks[@]}" | tee "$OUT/combine.txt"
}
stage combine combine
# 7. The same graphs on LevyHolt dev and dev_dir.
stage levyholt egqa graph eval-levyholt "$OUT/graphs" "$LEVYHOLT" --long --lm
# 7b. The graphs a deployment serves: every article of the corpus, no period held out (the BoOQA evaluation above
#     must not use them: a positive's own sentence would be in their counts). LevyHolt owes nothing to this news,
#     so they are scored on it as well (docs/results.md, "The whole corpus' graphs").
stage graphs-all egqa graph build "$OUT/triples" --out "$OUT/graphs-all" --overwrite --top-k 0 --min-score 0 \
  --measures binc,binc_clean,binc_lp,binc_clean_lp
stage embed-all egqa graph embed "$OUT/graphs-all"
stage levyholt-all egqa graph eval-levyholt "$OUT/graphs-all" "$LEVYHOLT" --long --lm
# 8. Optionally the same store and evaluation through a real Elasticsearch.
if [ "${EGQA_FULL_ES:-0}" = 1 ]; then
  bash scripts/elasticsearch.sh start "$ES_PORT"
  stage es-index egqa index "$OUT/triples" --store "http://127.0.0.1:$ES_PORT/egqa-full" --split TEST --replace
  stage es-evaluate serve_and_evaluate es "http://127.0.0.1:$ES_PORT/egqa-full"
fi

python - "$OUT" <<'EOF'
import re, sys
from pathlib import Path
out = Path(sys.argv[1])
print(f"{'stage':<12} {'wall':>10} {'peak RSS':>10}")
for t in sorted(out.glob("*.time"), key=lambda p: p.stat().st_mtime):
    text = t.read_text()
    wall = re.search(r"Elapsed \(wall clock\) time.*: (.*)", text)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    print(f"{t.stem:<12} {wall.group(1) if wall else '?':>10} {int(rss.group(1)) / 1e6 if rss else 0:>8.2f}GB")
EOF
