"""Corpus -> triples dataset: shards of articles parsed in parallel, each written atomically.

Locally the shards run on a process pool (one spaCy pipeline per process); with a scheduler address the
same `extract_shard` runs on a Dask distributed cluster whose workers see the output folder at the same
absolute path and write their shards into it (docs/cluster.md). A rerun
skips shards already written, so a crash loses at most the shards in flight.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import orjson

from graph_builder import __version__
from graph_builder.entities import canonicalise
from graph_builder.entity_types import harmonise_types, write_listed
from graph_builder.corpus import (Article, Cleaner, ReadReport, clean_serially, corpus_files, count_records,
                                  read_file)
from graph_builder.errors import InputError
from graph_builder.news import clean_and_list, clean_news
from graph_builder.extras import require
from graph_builder.headlines import headline_as_prose, headline_sentence
from graph_builder.extraction import DEFAULT_MODEL, SentenceParser, load_pipeline, parser_model
from graph_builder.extraction.parsers import require_installed
from graph_builder.triples import ARTICLE_SCHEMA, article_shard_path, shard_path, write_shard
from graph_builder.windows import DEFAULT_WINDOW_DAYS, window_of

log = logging.getLogger(__name__)

DEFAULT_SHARD_SIZE = 400
PROGRESS_EVERY = 100  # articles read between two calls of plan_shards' progress
MANIFEST = "manifest.json"
REPORT = "report.json"


@dataclass(frozen=True)
class ShardTask:
    """A named slice of the corpus that one worker parses and writes as one shard."""

    name: str
    articles: tuple[Article, ...]


@dataclass(frozen=True)
class ShardResult:
    """What one shard produced."""

    name: str
    articles: int
    sentences: int
    tokens: int
    triples: int
    seconds: float
    skipped: bool = False


@dataclass
class ExtractSummary:
    """The outcome of an extraction run, also written to `report.json`."""

    out: str
    articles: int = 0
    sentences: int = 0
    tokens: int = 0
    triples: int = 0
    shards: int = 0
    shards_resumed: int = 0
    seconds: float = 0.0
    read: dict[str, object] = field(default_factory=dict)
    replaced: bool = False  # an earlier extraction of another corpus or settings was there and is gone
    type_counts: dict[str, int] = field(default_factory=dict)
    types: dict[str, object] = field(default_factory=dict)
    entities: dict[str, object] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        """Return the summary as JSON-ready data."""
        return asdict(self)


def parse_articles(parser: SentenceParser, articles: Sequence[Article]) -> list[tuple[list, list]]:
    """Each article's parsed body sentences and parsed title (`headline_sentence`: none when it states no event),
    parsed in one batch; a title that gives no relation as written is read as the prose it stands for
    (`titles_as_prose`)."""
    titles = [headline_sentence(a.title) for a in articles]
    parsed = parser.parse([a.text for a in articles] + titles)
    return list(zip(parsed[:len(articles)], titles_as_prose(parser, titles, parsed[len(articles):]), strict=True))


def titles_as_prose(parser: SentenceParser, titles: Sequence[str], parsed: Sequence[list]) -> list[list]:
    """The parsed titles, where one gave no relation as written replaced by the relations of the news prose it
    stands for ("Yahoo fires Mayer." read as "Yahoo fired Mayer.": `headline_as_prose`), kept under the title's own
    text: the small parser takes a headline's present tense for a plural noun and its bare participle for an active
    verb."""
    out = list(parsed)
    todo = [k for k, (title, sentences) in enumerate(zip(titles, parsed, strict=True))
            if title and not any(s.relations for s in sentences)]
    if not todo:
        return out
    rewritten = [(k, headline_as_prose(doc)) for k, doc in zip(todo, parser.nlp.pipe([titles[k] for k in todo]),
                                                                strict=True)]
    rewritten = [(k, prose) for k, prose in rewritten if prose is not None]
    for (k, _), sentences in zip(rewritten, parser.parse([prose for _, prose in rewritten]), strict=True):
        if len(sentences) == 1 and sentences[0].relations:
            out[k] = [replace(sentences[0], text=parsed[k][0].text if parsed[k] else titles[k])]
    return out


def article_record(article: Article, sentences: Sequence, triples: int, window_days: int) -> dict[str, object]:
    """One article's row of the articles table (ARTICLE_SCHEMA): its parsed sentences, the title's included."""
    return {"article_id": article.id, "date": article.date, "window": window_of(article.date, window_days),
            "split": article.split, "title": article.title, "sentences": len(sentences),
            "tokens": sum(s.tokens for s in sentences), "triples": triples}


def article_rows(article: Article, doc_sentences: list, window_days: int,
                 title_sentences: Sequence = ()) -> tuple[list[dict[str, object]], int]:
    """Turn one parsed article into triple rows; also return its sentence count, the title's included. A title's
    sentences are `t000`, ... after the body's `0000`, ...: read last, so that the canonical-entities pass resolves
    a headline's short names ("Facebook") to the full names of the body ("Facebook Inc")."""
    window = window_of(article.date, window_days)
    rows: list[dict[str, object]] = []
    for sent, sentence_id in [*((s, f"{article.id}:{s.index:04d}") for s in doc_sentences),
                              *((s, f"{article.id}:t{s.index:03d}") for s in title_sentences)]:
        for k, rel in enumerate(sent.relations):
            rows.append({
                "triple_id": f"{sentence_id}:{k:03d}",
                "article_id": article.id,
                "sentence_id": sentence_id,
                "date": article.date,
                "window": window,
                "split": article.split,
                "subj": rel.subj.norm,
                "subj_text": rel.subj.text,
                "subj_type": rel.subj.type,
                "obj": rel.obj.norm,
                "obj_text": rel.obj.text,
                "obj_type": rel.obj.type,
                "predicate": rel.predicate,
                "predicate_text": rel.predicate_text,
                "negated": rel.negated,
                "sentence": sent.text,
            })
    return rows, len(doc_sentences) + len(title_sentences)


_PARSERS: dict[str, SentenceParser] = {}


def _shard_parser(model: str) -> SentenceParser:
    """One sentence parser (and sentence cache) per process and model, shared by the shards it runs."""
    if model not in _PARSERS:
        _PARSERS[model] = SentenceParser(load_pipeline(model))
    return _PARSERS[model]


def extract_shard(task: ShardTask, out_dir: str, model: str = DEFAULT_MODEL,
                  window_days: int = DEFAULT_WINDOW_DAYS) -> ShardResult:
    """Parse one shard's articles and write its triple and article files atomically."""
    start = time.perf_counter()
    out = Path(out_dir)
    rows: list[dict[str, object]] = []
    articles: list[dict[str, object]] = []
    sentences = 0
    parser = _shard_parser(model)
    before = parser.stats.tokens
    for article, (doc_sentences, title_sentences) in zip(task.articles, parse_articles(parser, task.articles),
                                                         strict=True):
        article_triples, n_sentences = article_rows(article, doc_sentences, window_days, title_sentences)
        rows += article_triples
        sentences += n_sentences
        articles.append(article_record(article, [*doc_sentences, *title_sentences], len(article_triples), window_days))
    tokens = parser.stats.tokens - before
    # Articles first, triples last: a shard counts as done once its triples file exists.
    write_shard(articles, article_shard_path(out, task.name), ARTICLE_SCHEMA)
    write_shard(rows, shard_path(out, task.name))
    return ShardResult(task.name, len(task.articles), sentences, tokens, len(rows), time.perf_counter() - start)


GRAPH_SPLIT = "TRAIN"
EVAL_SPLIT = "TEST"


def date_split(article: Article, eval_from: dt.date | None) -> Article:
    """Label an article without a split of its own: TRAIN (graph induction) before `eval_from`, TEST from it on."""
    if eval_from is None or article.split:
        return article
    return replace(article, split=EVAL_SPLIT if article.date >= eval_from else GRAPH_SPLIT)


def _unique(articles: Iterable[Article], seen: set[bytes], report: ReadReport, file: Path) -> Iterator[Article]:
    """Drop exact duplicate articles (same cleaned text), keeping the first; count each one dropped."""
    for article in articles:
        key = hashlib.blake2b(article.text.encode(), digest_size=16).digest()
        if key in seen:
            report.skip("duplicate_text", f"{file.name} id={article.id}")
            report.read -= 1
            continue
        seen.add(key)
        yield article


def plan_shards(paths: list[Path], shard_size: int = DEFAULT_SHARD_SIZE, eval_from: dt.date | None = None,
                workers: int = 1, progress: Callable[[int], None] | None = None,
                listed: Counter[tuple[str, str]] | None = None) -> tuple[list[ShardTask], ReadReport, str]:
    """Read the corpus and cut it into named shards; also return the read report and a corpus fingerprint.

    Exact duplicate articles are dropped (counted as `duplicate_text`); with `eval_from`, articles without a
    split of their own are labelled TRAIN before that date and TEST from it on. Bodies are cleaned in `workers`
    processes (the same articles, in the same order, as one); `progress` is called with each batch of records read
    or skipped (duplicates too), so that it ends at `graph_builder.corpus.count_records`.
    `listed` counts the names the copy writes before a ticker, with its symbol (`graph_builder.news.listed_names`),
    duplicates too.
    """
    if shard_size < 1:
        raise InputError(f"shard_size must be positive, got {shard_size}")
    report = ReadReport()
    tasks: list[ShardTask] = []
    digest = hashlib.sha256()
    seen: set[bytes] = set()
    report_progress = _RecordProgress(report, progress)
    with cleaning(workers, listed) as cleaner:
        for file in corpus_files(paths):
            articles: list[Article] = []
            for article in _unique(read_file(file, report, cleaner), seen, report, file):
                articles.append(date_split(article, eval_from))
                if len(articles) % PROGRESS_EVERY == 0:
                    report_progress()
            report_progress()
            stat = file.stat()
            digest.update(f"{file.name}:{stat.st_size}:{len(articles)}".encode())
            stem = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in file.stem)
            for n, start in enumerate(range(0, len(articles), shard_size)):
                tasks.append(ShardTask(f"{stem}-{n:04d}", tuple(articles[start:start + shard_size])))
    return tasks, report, digest.hexdigest()


class _RecordProgress:
    """Calls `progress` with the records a reader has read or skipped since the last call."""

    def __init__(self, report: ReadReport, progress: Callable[[int], None] | None) -> None:
        self.report, self.progress, self.reported = report, progress, 0

    def __call__(self) -> None:
        records = self.report.read + sum(self.report.skipped.values())
        if self.progress and records > self.reported:
            self.progress(records - self.reported)
        self.reported = records


@contextmanager
def cleaning(workers: int, listed: Counter[tuple[str, str]] | None = None) -> Iterator[Cleaner]:
    """A `Cleaner` over `workers` processes (in this one for 1); the pool closes with the block. With `listed`, it
    also counts there the names each body writes before a ticker."""
    def counting(pairs: Iterable[tuple[str, list[tuple[str, str]]]]) -> list[str]:
        texts = []
        for text, names in pairs:
            texts.append(text)
            listed.update(names)  # type: ignore[union-attr]
        return texts

    if workers <= 1:
        yield clean_serially if listed is None else lambda bodies: counting(map(clean_and_list, bodies))
        return
    with ProcessPoolExecutor(max_workers=workers, initializer=_exit_with_parent, initargs=(os.getpid(),)) as pool:
        def chunk(bodies: Sequence[str]) -> int:
            return max(1, len(bodies) // (4 * workers))

        if listed is None:
            yield lambda bodies: list(pool.map(clean_news, bodies, chunksize=chunk(bodies)))
        else:
            yield lambda bodies: counting(pool.map(clean_and_list, bodies, chunksize=chunk(bodies)))


def collect_listed(paths: list[Path], workers: int | None = None,
                   progress: Callable[[int], None] | None = None,
                   total: Callable[[int], None] | None = None) -> Counter[tuple[str, str]]:
    """Count the (name, ticker symbol) pairs a corpus writes (for `egqa types --corpus` on a dataset extracted before
    extraction kept them); `progress` is called with each batch of records read, after `total` with their number."""
    if total:
        total(count_records(paths))
    listed: Counter[tuple[str, str]] = Counter()
    report = ReadReport()
    report_progress = _RecordProgress(report, progress)
    # Streamed: the articles are counted as the cleaner reads them and dropped (planning shards would hold them all).
    with cleaning(workers or os.cpu_count() or 1, listed) as cleaner:
        for file in corpus_files(paths):
            for n, _ in enumerate(read_file(file, report, cleaner), start=1):
                if n % PROGRESS_EVERY == 0:
                    report_progress()
            report_progress()
    return listed


def _check_manifest(out: Path, manifest: dict[str, object], overwrite: bool) -> bool:
    """Whether `out` held an extraction of another corpus or settings, now removed (refused without `overwrite`)."""
    path = out / MANIFEST
    if not path.exists():
        return False
    old = orjson.loads(path.read_bytes())
    keys = ("extractor", "model", "window_days", "shard_size", "corpus_fingerprint", "eval_from")
    if all(old.get(k) == manifest.get(k) for k in keys):
        return False
    if not overwrite:
        raise InputError(f"{out} holds an extraction of another corpus or settings; "
                         "pass --overwrite to replace it or choose another --out folder")
    # The shards, and what the typing and entities passes kept beside them (their names and types as extracted).
    for pattern in ("part-*.parquet", "articles-*.parquet", "names-*.parquet", "recognised-*.parquet"):
        for file in out.glob(pattern):
            file.unlink()
    return True


def _exit_with_parent(parent: int) -> None:
    """Pool initializer: end this worker once its parent is gone (kill -9 leaves no one else to stop it)."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()


def _run_local(tasks: list[ShardTask], out: Path, model: str, window_days: int, workers: int) -> Iterator[ShardResult]:
    if workers == 1:
        for task in tasks:
            yield extract_shard(task, str(out), model, window_days)
        return
    with ProcessPoolExecutor(max_workers=workers, initializer=_exit_with_parent, initargs=(os.getpid(),)) as pool:
        futures: list[Future[ShardResult]] = [
            pool.submit(extract_shard, task, str(out), model, window_days) for task in tasks]
        for future in as_completed(futures):
            yield future.result()


def _run_dask(tasks: list[ShardTask], out: Path, model: str, window_days: int, scheduler: str) -> Iterator[ShardResult]:
    distributed = require("cluster", "dask.distributed", "extraction on a Dask cluster (--scheduler)")
    Client, dask_completed = distributed.Client, distributed.as_completed

    with Client(scheduler, timeout="30s") as client:
        # Workers run in folders of their own: they get the output folder as an absolute path.
        futures = client.map(extract_shard, tasks, out_dir=str(out.absolute()), model=model, window_days=window_days,
                             key=[f"egqa-extract-{t.name}" for t in tasks])
        for future in dask_completed(futures):
            yield future.result()


def extract_corpus(paths: list[Path], out: Path, *, workers: int | None = None, scheduler: str | None = None,
                   model: str = DEFAULT_MODEL, window_days: int = DEFAULT_WINDOW_DAYS,
                   shard_size: int = DEFAULT_SHARD_SIZE, overwrite: bool = False, eval_from: dt.date | None = None,
                   progress: Callable[[int], None] | None = None,
                   total: Callable[[int], None] | None = None, canonical: bool = True,
                   reading: Callable[[int], None] | None = None,
                   reading_total: Callable[[int], None] | None = None) -> ExtractSummary:
    """Extract typed triples from corpus files into the dataset folder `out`, resuming finished shards; then
    give each name one type and (unless `canonical` is False) each entity one canonical name. `reading` follows
    the corpus being read and cleaned (in `workers` local processes, also with a scheduler) before any shard, by
    records read or skipped; `reading_total` is told first how many records there are."""
    started = time.perf_counter()
    if window_days < 1:
        raise InputError(f"window_days must be positive, got {window_days}")
    workers = workers or os.cpu_count() or 1
    if workers < 1:
        raise InputError(f"workers must be positive, got {workers}")
    if reading_total:
        reading_total(count_records(paths))
    listed: Counter[tuple[str, str]] = Counter()
    tasks, report, fingerprint = plan_shards(paths, shard_size, eval_from, workers, reading, listed)
    if not tasks:
        raise InputError(f"no readable articles in {', '.join(map(str, paths))}: {report.to_dict()['skipped']}")
    spec = parser_model(model)  # an unknown or uninstalled parser fails here, before any folder is written
    require_installed(spec)
    out.mkdir(parents=True, exist_ok=True)
    manifest = {"format": "egqa.triples.v1", "egqa_version": __version__, "extractor": spec.extractor,
                "parser": spec.name.value, "model": spec.package, "model_requirement": spec.requirement,
                "window_days": window_days, "shard_size": shard_size,
                "corpus_fingerprint": fingerprint, "corpus": [str(p) for p in paths], "shards": len(tasks),
                "eval_from": eval_from.isoformat() if eval_from else None,
                "splits": {"TRAIN": "graph induction", "TEST": "evaluation"} if eval_from else None}
    replaced = _check_manifest(out, manifest, overwrite)
    (out / MANIFEST).write_bytes(orjson.dumps(manifest, option=orjson.OPT_INDENT_2))
    todo = [t for t in tasks if not shard_path(out, t.name).exists()]
    summary = ExtractSummary(str(out), shards=len(tasks), shards_resumed=len(tasks) - len(todo), read=report.to_dict(),
                             replaced=replaced)
    if total:
        total(sum(len(t.articles) for t in tasks))
    if progress:
        progress(sum(len(t.articles) for t in tasks if t not in todo))
    runner = _run_dask(todo, out, model, window_days, scheduler) if scheduler else \
        _run_local(todo, out, model, window_days, min(workers, max(len(todo), 1)))
    for result in runner:
        if progress:
            progress(result.articles)
    write_listed(out, listed)
    summary.types = harmonise_types(out).to_dict()
    if canonical:
        summary.entities = canonicalise(out).to_dict()
    _summarise(out, summary)
    summary.seconds = round(time.perf_counter() - started, 2)
    (out / REPORT).write_bytes(orjson.dumps(summary.to_dict(), option=orjson.OPT_INDENT_2))
    return summary


def _summarise(out: Path, summary: ExtractSummary) -> None:
    import pyarrow.compute as pc

    from graph_builder.triples import read_articles, read_triples

    articles = read_articles(out)
    summary.articles = articles.num_rows
    summary.sentences = int(pc.sum(articles["sentences"]).as_py() or 0)
    summary.tokens = int(pc.sum(articles["tokens"]).as_py() or 0)
    triples = read_triples(out, columns=["subj_type", "obj_type"])
    summary.triples = triples.num_rows
    counts: dict[str, int] = {}
    for column in ("subj_type", "obj_type"):
        for item in pc.value_counts(triples[column]).to_pylist():
            counts[item["values"]] = counts.get(item["values"], 0) + item["counts"]
    summary.type_counts = dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
