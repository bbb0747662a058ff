"""Fetch the public Reuters-21578 archive when the user has no copy: stream, unpack, verify the SGML files."""

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
# sha256 of the lines "<name> <sha256 of the file>\n" of reut2-000.sgm .. reut2-021.sgm, in name order: the SGML
# files themselves are checked, not the archive, whose gzip headers differ from one mirror's copy to another's.
REUTERS_CONTENT_SHA256 = "b6d36e7b72d64dcf70879f24dec73e3a74d69ead1856e2d4e618deb501973ac7"


def content_sha256(folder: Path) -> str:
    """Return the checksum of the reut2-*.sgm files in `folder` (see REUTERS_CONTENT_SHA256)."""
    lines = "".join(f"{path.name} {hashlib.sha256(path.read_bytes()).hexdigest()}\n"
                    for path in sorted(folder.glob("reut2-*.sgm")))
    return hashlib.sha256(lines.encode()).hexdigest()


def download_reuters(dest: Path, url: str = REUTERS_URL, timeout: float = 60.0,
                     sha256: str = REUTERS_CONTENT_SHA256) -> Path:
    """Download and unpack Reuters-21578 into `dest` (kept if already there and intact); check its files against
    `sha256` (see content_sha256); return the folder of .sgm files."""
    dest.mkdir(parents=True, exist_ok=True)
    if len(list(dest.glob("reut2-*.sgm"))) == REUTERS_FILES and content_sha256(dest) == sha256:
        return dest
    archive = dest / "reuters21578.tar.gz.part"
    try:
        with httpx.stream("GET", url, timeout=timeout, follow_redirects=True) as response:
            if response.status_code != 200:
                raise CorpusError(f"downloading {url} failed: HTTP {response.status_code}; "
                                  "download it yourself and pass its folder (or set EGQA_CORPUS)")
            total = int(response.headers.get("content-length") or 0) or None
            with archive.open("wb") as sink, tqdm(total=total, unit="B", unit_scale=True, desc="download") as bar:
                for chunk in response.iter_bytes(1 << 16):
                    sink.write(chunk)
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
    found = content_sha256(dest)
    if found != sha256:
        for path in dest.glob("reut2-*.sgm"):
            path.unlink()
        raise CorpusError(f"{url} unpacked to files that are not Reuters-21578 Distribution 1.0 (content sha256 "
                          f"{found}, expected {sha256}); download it yourself and pass its folder (or set EGQA_CORPUS)")
    log.info("downloaded %s into %s (content sha256 %s, as expected)", url, dest, found)
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
