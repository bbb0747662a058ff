"""Every question set of the repository asked of one running service, and two such runs compared: the procedure
each session's before/after figures on the blind sets come from.

`ask` asks each file of benchmark/questions (ours, `people_ask*.jsonl`) and benchmark/questions/held_out (written
blind) twice, with the service's default scorer (`combined` where fitted) and with `--scorer` (the default without a
fitted combination), and writes OUT/<set>-combined.json and OUT/<set>-default.json, each with its totals and every
answer, as `egqa benchmark questions --json` prints them. `compare A B` prints each set's totals in both runs, the
sums over the blind sets, and every question whose answer or evidence changed.

`ask --headlines` asks the same questions written as headlines instead (benchmark/questions/headlines: each line's
`prose` is the question as its set writes it), into its own OUT.

Usage: python bench/question_sets.py ask --url http://127.0.0.1:8000 --out out/q-now [--scorer S] [--headlines]
       python bench/question_sets.py compare out/q-before out/q-now
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

# Run as a script, this folder comes first on sys.path and bench/retrieval.py would shadow the package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import orjson  # noqa: E402

from benchmark.questions import ask_questions, read_questions, summary  # noqa: E402

QUESTIONS = Path(__file__).resolve().parents[1] / "benchmark" / "questions"
DEFAULT_SCORER = "binc_clean+smooth+act+lm+dir"
RUNS = ("combined", "default")  # the service's default scorer, and --scorer


HEADLINES = QUESTIONS / "headlines"  # the same questions written as headlines (`--headlines`)


def question_files(root: Path = QUESTIONS) -> list[Path]:
    """The blind sets first (held_out/ or, in the headlines folder, written_blind_*), then ours."""
    return (sorted((root / "held_out").glob("*.jsonl")) + sorted(root.glob("written_blind_*.jsonl"))
            + sorted(root.glob("people_ask*.jsonl")))


def ask(url: str, out: Path, scorer: str, api_key: str | None = None, root: Path = QUESTIONS) -> None:
    """Ask every set of `root` with the service's default scorer and with `scorer`; write one JSON file per set and
    run."""
    out.mkdir(parents=True, exist_ok=True)
    for path in question_files(root):
        for run, chosen in zip(RUNS, (None, scorer), strict=True):
            results = ask_questions(read_questions(path), url, chosen, api_key)
            document = {"totals": summary(results), "answers": [r.to_dict() for r in results]}
            (out / f"{path.stem}-{run}.json").write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2))
            totals = document["totals"]
            print(f"{path.stem:<18} {run:<8} right {totals['right']} of {totals['questions']}")


def _read(folder: Path) -> dict[str, dict[str, Any]]:
    return {path.stem: orjson.loads(path.read_bytes()) for path in sorted(folder.glob("*.json"))}


def compare(before: Path, after: Path) -> list[str]:
    """Each set's totals in both runs, the sums over the blind sets per run kind, and the changed answers."""
    a, b = _read(before), _read(after)
    if not a or not b:
        raise SystemExit(f"no answers in {before if not a else after}: run `ask` first")
    lines: list[str] = []
    blind = {run: [0, 0, 0, 0] for run in RUNS}  # right before, right after, questions, sets
    for name in sorted(set(a) & set(b)):
        ta, tb = a[name]["totals"], b[name]["totals"]
        lines.append(f"{name:<26} right {ta['right']} -> {tb['right']} of {tb['questions']}; true answered true "
                     f"{ta['true_right']} -> {tb['true_right']}; true finding evidence {ta['true_with_evidence']} -> "
                     f"{tb['true_with_evidence']}; not read {ta['unread']} -> {tb['unread']}")
        run = name.rsplit("-", 1)[-1]
        if name.startswith("written_blind") and run in blind:
            blind[run] = [blind[run][0] + ta["right"], blind[run][1] + tb["right"], blind[run][2] + tb["questions"],
                          blind[run][3] + 1]
        old = {x["id"]: x for x in a[name]["answers"]}
        for x in b[name]["answers"]:
            y = old.get(x["id"])
            if y is not None and (y["right"] != x["right"] or (y["evidence"] > 0) != (x["evidence"] > 0)):
                lines.append(f"    {x['id']} expected {x['expected']}: right {y['right']} -> {x['right']}, evidence "
                             f"{y['evidence']} -> {x['evidence']}, score {y['score'] or 0:.3f} -> {x['score'] or 0:.3f}"
                             f"  {x['text'][:70]}")
    for run, (right_a, right_b, questions, sets) in blind.items():
        if sets:
            lines.append(f"blind sets, {run}: {right_a} -> {right_b} right of {questions} ({sets} sets)")
    return lines


def main() -> None:
    """Run the subcommand."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    asking = commands.add_parser("ask", help="ask every set of a running service")
    asking.add_argument("--url", default="http://127.0.0.1:8000")
    asking.add_argument("--out", type=Path, required=True)
    asking.add_argument("--scorer", default=DEFAULT_SCORER)
    asking.add_argument("--api-key")
    asking.add_argument("--headlines", action="store_true",
                        help="ask the same questions written as headlines (benchmark/questions/headlines)")
    asking.set_defaults(run=lambda a: ask(a.url, a.out, a.scorer, a.api_key, HEADLINES if a.headlines else QUESTIONS))
    comparing = commands.add_parser("compare", help="compare two runs of `ask`")
    comparing.add_argument("before", type=Path)
    comparing.add_argument("after", type=Path)
    comparing.set_defaults(run=lambda a: print("\n".join(compare(a.before, a.after))))
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
