"""The edges a scorer answers with: a sample for a blind read, drawn from a finished benchmark evaluation.

For `--match untyped`: propositions that `binc` scores 0 and `binc+untyped` above 0 (the untyped set answered them);
for `--match typed`: propositions `binc` scores above 0. Each one (shuffled with `--seed`) is asked of a running
service with that scorer and the benchmark's protocol (its excluded sentences, `exclude_same_predicate`), and its best
evidence item of that match kind with a predicate other than the hypothesis' own gives one edge (each premise ->
hypothesis pair once), until `--n`. Written as JSON: proposition id and label, premise and hypothesis predicates,
the hypothesis' argument types, whether the premise holds the arguments the other way around, and the score; no
corpus text. `bench/edge_read.py judge` reads a sample.tsv / key.jsonl made from two such files
(bench/data/edge_reads/untyped-x23-evidence-seed4242).

Usage: python bench/evidence_edges.py RUN_PREFIX BENCHMARK_DIR URL --match untyped|typed [--n 40] [--seed 4242] --out F
(RUN_PREFIX-dev and RUN_PREFIX-test are `egqa evaluate` folders holding binc and binc+untyped.)
"""

from __future__ import annotations

import argparse
import json
import random
import urllib.request
from pathlib import Path


def moved(run: str, match: str) -> list[str]:
    """Ids of the propositions whose scores say `match` evidence answered them."""
    ids = []
    for split in ("dev", "test"):
        for line in Path(f"{run}-{split}/scores.jsonl").read_text().splitlines():
            r = json.loads(line)
            if (r["binc"] == 0 and r["binc+untyped"] > 0) if match == "untyped" else r["binc"] > 0:
                ids.append(r["id"])
    return ids


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run")
    ap.add_argument("benchmark", type=Path)
    ap.add_argument("url")
    ap.add_argument("--match", choices=("untyped", "typed"), required=True)
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--seed", type=int, default=4242)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    entries = {}
    for split in ("dev", "test"):
        for line in (args.benchmark / f"{split}.jsonl").read_text().splitlines():
            e = json.loads(line)
            entries[e["id"]] = e
    ids = moved(args.run, args.match)
    random.Random(args.seed).shuffle(ids)
    scorer = "binc+untyped" if args.match == "untyped" else "binc"
    edges: list[dict[str, object]] = []
    seen: set[tuple[str, str]] = set()
    for pid in ids:
        e = entries[pid]
        body = {"subject": e["subj"], "object": e["obj"], "predicate": e["predicate"], "subject_type": e["subj_type"],
                "object_type": e["obj_type"], "window": e["window"], "exclude_sentence_ids": e["exclude_sentence_ids"],
                "exclude_same_predicate": True, "scorer": scorer, "top_k": 5}
        request = urllib.request.Request(args.url + "/v1/query", data=json.dumps(body).encode(),
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request) as response:
            answer = json.load(response)
        for ev in answer["evidence"]:
            if ev["match"] == args.match and ev["score"] > 0 and ev["predicate"] != e["predicate"]:
                if (ev["predicate"], e["predicate"]) not in seen:
                    seen.add((ev["predicate"], e["predicate"]))
                    edges.append({"id": pid, "label": e["label"], "premise": ev["predicate"],
                                  "hypothesis": e["predicate"], "types": [e["subj_type"], e["obj_type"]],
                                  "reversed": ev["subject"] != e["subj"], "score": ev["score"]})
                break
        if len(edges) >= args.n:
            break
    args.out.write_text(json.dumps(edges, indent=1))
    print(f"{len(ids)} propositions answered by {args.match} evidence; {len(edges)} edges written to {args.out}")


if __name__ == "__main__":
    main()
