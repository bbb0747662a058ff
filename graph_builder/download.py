"""Fetch the public Reuters-21578 archive when the user has no copy: stream, verify, unpack the SGML files."""

from __future__ import annotations

import hashlib
import logging
import os
import tarfile
from pathlib import Path

import httpx
from tqdm import tqdm

from graph_builder.errors import CorpusError

log = logging.getLogger(__name__)

# The UCI KDD archive's copy of "Reuters-21578, Distribution 1.0".
REUTERS_URL = "https://kdd.ics.uci.edu/databases/reuters21578/reuters21578.tar.gz"
REUTERS_FILES = 22


def download_reuters(dest: Path, url: str = REUTERS_URL, timeout: float = 60.0) -> Path:
    """Download and unpack Reuters-21578 into `dest` (kept if already complete); return the folder of .sgm files."""
    dest.mkdir(parents=True, exist_ok=True)
    if len(list(dest.glob("reut2-*.sgm"))) == REUTERS_FILES:
        return dest
    archive = dest / "reuters21578.tar.gz.part"
    digest = hashlib.sha256()
    try:
        with httpx.stream("GET", url, timeout=timeout, follow_redirects=True) as response:
            if response.status_code != 200:
                raise CorpusError(f"downloading {url} failed: HTTP {response.status_code}; "
                                  "download it yourself and pass its folder (or set EGQA_CORPUS)")
            total = int(response.headers.get("content-length") or 0) or None
            with archive.open("wb") as sink, tqdm(total=total, unit="B", unit_scale=True, desc="download") as bar:
                for chunk in response.iter_bytes(1 << 16):
                    sink.write(chunk)
                    digest.update(chunk)
                    bar.update(len(chunk))
    except httpx.HTTPError as exc:
        archive.unlink(missing_ok=True)
        raise CorpusError(f"downloading {url} failed: {exc}; download it yourself and pass its folder "
                          "(or set EGQA_CORPUS)") from exc
    try:
        with tarfile.open(archive, "r:gz") as tar:
            members = [m for m in tar.getmembers() if m.isfile() and Path(m.name).name.startswith("reut2-")
                       and m.name.endswith(".sgm")]
            if not members:
                raise CorpusError(f"{url} holds no reut2-*.sgm files: not the Reuters-21578 archive")
            for member in members:
                member.name = Path(member.name).name  # flatten: never write outside dest
                tar.extract(member, dest, filter="data")
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise CorpusError(f"{url}: not a readable .tar.gz archive ({exc})") from exc
    finally:
        archive.unlink(missing_ok=True)
    log.info("downloaded %s (sha256 %s) into %s", url, digest.hexdigest(), dest)
    return dest


def resolve_corpus(given: Path | None, cache: Path, url: str = REUTERS_URL) -> Path:
    """Return the corpus to use: the given path, else $EGQA_CORPUS, else a downloaded Reuters-21578."""
    if given is not None:
        if not given.exists():
            raise CorpusError(f"corpus {given} not found")
        return given
    env = os.environ.get("EGQA_CORPUS")
    if env:
        if not Path(env).exists():
            raise CorpusError(f"EGQA_CORPUS={env} not found")
        return Path(env)
    return download_reuters(cache, url)
