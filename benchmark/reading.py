"""Reading a benchmark by hand: a blind sample to judge, then the verdicts scored against the labels.

Li et al. (2022, appendix E.2) judged propositions from the predicate and the argument types alone, labels
hidden. `write_sample` draws positives and negatives of one split at random, shuffles them, masks the
arguments and writes three files:

    sample.tsv   item, the masked proposition (`[organization] posted [organization]`), and two empty verdict
                 columns: `felicitous` (y/n: does it read as a natural statement?) and `kind`
    reveal.tsv   item, arguments, date and the bundle's positive: open it only after every `felicitous` verdict
    key.jsonl    item -> entry id and label: read by `judge` only

After `reveal.tsv` the reader fills `kind`: for a proposition that turns out to be a negative, `same_sense`
(a more specific predicate of the positive's sense, plausibly false), `other_sense` (a hyponym of another sense
of the replaced word) or `probably_true` (true given the news); for a positive, `relation` or `fragment` (the
predicate lost the word that carries the meaning). `score_verdicts` counts them per label with Wilson 95%
intervals.
"""

from __future__ import annotations

import csv
import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import orjson

from benchmark.build import read_jsonl
from graph_builder.errors import InputError

SAMPLE_FILE = "sample.tsv"
REVEAL_FILE = "reveal.tsv"
KEY_FILE = "key.jsonl"
FELICITY = {"y": True, "n": False}
KINDS: dict[int, tuple[str, ...]] = {0: ("same_sense", "other_sense", "probably_true"), 1: ("relation", "fragment")}


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (0, 0 for n = 0)."""
    if n == 0:
        return 0.0, 0.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _masked(entry: dict[str, object]) -> str:
    return f"[{entry['subj_type']}] {entry['predicate_text']} [{entry['obj_type']}]"


def write_sample(benchmark: Path, out: Path, split: str = "test", positives: int = 100, negatives: int = 100,
                 seed: int = 0) -> dict[str, int]:
    """Write a blind sample of one split (sample.tsv, reveal.tsv, key.jsonl) and return its counts."""
    path = benchmark / f"{split}.jsonl" if benchmark.is_dir() else benchmark
    entries = read_jsonl(path)
    by_label = {label: [e for e in entries if int(e["label"]) == label] for label in (0, 1)}  # type: ignore[arg-type]
    wanted = {1: positives, 0: negatives}
    short = [f"{wanted[k]} {'positives' if k else 'negatives'} asked, {len(by_label[k])} in {path}"
             for k in (1, 0) if wanted[k] > len(by_label[k])]
    if short:
        raise InputError("; ".join(short))
    rng = random.Random(seed)
    chosen = [e for k in (1, 0) for e in rng.sample(by_label[k], wanted[k])]
    rng.shuffle(chosen)
    positive_of = {str(e["bundle_id"]): str(e["predicate_text"]) for e in entries if int(e["label"]) == 1}  # type: ignore[arg-type]
    out.mkdir(parents=True, exist_ok=True)
    items = [f"r{n:04d}" for n in range(len(chosen))]
    with (out / SAMPLE_FILE).open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
        writer.writerow(["item", "proposition", "felicitous", "kind"])
        for item, entry in zip(items, chosen, strict=True):
            writer.writerow([item, _masked(entry), "", ""])
    with (out / REVEAL_FILE).open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
        writer.writerow(["item", "subj", "predicate_text", "obj", "date", "bundle_positive"])
        for item, entry in zip(items, chosen, strict=True):
            writer.writerow([item, entry["subj"], entry["predicate_text"], entry["obj"], entry["date"],
                             positive_of.get(str(entry["bundle_id"]), "")])
    with (out / KEY_FILE).open("wb") as handle:
        for item, entry in zip(items, chosen, strict=True):
            handle.write(orjson.dumps({"item": item, "id": entry["id"], "label": entry["label"],
                                       "predicate": entry["predicate"], "source": str(path)}) + b"\n")
    return {"positives": positives, "negatives": negatives, "split_entries": len(entries)}


@dataclass(frozen=True)
class Verdict:
    """One reader's verdict on one item."""

    item: str
    felicitous: bool | None
    kind: str


def read_verdicts(path: Path) -> list[Verdict]:
    """Read a filled sample.tsv; a bad felicity value or an empty file is an InputError naming the line."""
    if not path.is_file():
        raise InputError(f"{path}: no such verdict file")
    out: list[Verdict] = []
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader((line for line in handle if not line.startswith("#")), delimiter="\t")
        missing = {"item", "felicitous", "kind"} - set(reader.fieldnames or [])
        if missing:
            raise InputError(f"{path}: missing column(s) {', '.join(sorted(missing))}")
        for number, row in enumerate(reader, 2):
            value = (row["felicitous"] or "").strip().lower()
            if value and value not in FELICITY:
                raise InputError(f"{path}:{number}: felicitous must be y or n, got {value!r}")
            out.append(Verdict(row["item"], FELICITY.get(value) if value else None, (row["kind"] or "").strip()))
    if not out:
        raise InputError(f"{path}: no verdicts")
    return out


def score_verdicts(verdicts: Sequence[Verdict], key: Path) -> dict[str, object]:
    """Felicity and kinds per label, each with its Wilson 95% interval."""
    labels: dict[str, int] = {}
    with key.open("rb") as handle:
        for line in handle:
            if line.strip():
                record = orjson.loads(line)
                labels[str(record["item"])] = int(record["label"])
    unknown = [v.item for v in verdicts if v.item not in labels]
    if unknown:
        raise InputError(f"items not in {key}: {', '.join(unknown[:5])}")
    result: dict[str, object] = {}
    for label, name in ((1, "positives"), (0, "negatives")):
        mine = [v for v in verdicts if labels[v.item] == label]
        judged = [v for v in mine if v.felicitous is not None]
        felicitous = sum(1 for v in judged if v.felicitous)
        kinds = Counter(v.kind for v in mine if v.kind)
        bad = sorted(k for k in kinds if k not in KINDS[label])
        if bad:
            raise InputError(f"kind(s) {', '.join(bad)} on {name}; valid: {', '.join(KINDS[label])}")
        n_kinds = sum(kinds.values())
        result[name] = {
            "items": len(mine),
            "felicitous": felicitous, "judged": len(judged),
            "felicity": felicitous / len(judged) if judged else None,
            "felicity_ci": wilson(felicitous, len(judged)),
            "kinds": {k: {"n": kinds[k], "share": kinds[k] / n_kinds if n_kinds else None,
                          "ci": wilson(kinds[k], n_kinds)} for k in KINDS[label]},
        }
    return result


def format_judgement(result: dict[str, object]) -> str:
    """One block per label: felicity and each kind, as percentages with intervals."""
    lines = []
    for name in ("positives", "negatives"):
        r = result[name]
        assert isinstance(r, dict)
        lo, hi = r["felicity_ci"]
        share = f"{100 * r['felicity']:.0f}%" if r["felicity"] is not None else "-"
        lines.append(f"{name}: {r['items']} items; felicitous {r['felicitous']}/{r['judged']} = {share} "
                     f"[{100 * lo:.0f}, {100 * hi:.0f}]")
        for kind, k in r["kinds"].items():
            if k["share"] is not None:
                lo, hi = k["ci"]
                lines.append(f"  {kind:<14} {k['n']:>4}  {100 * k['share']:5.1f}% [{100 * lo:.0f}, {100 * hi:.0f}]")
    return "\n".join(lines)
