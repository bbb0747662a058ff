"""The Reuters download path, against a local HTTP server serving an archive made from the real files."""

from __future__ import annotations

import http.server
import tarfile
import threading
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from graph_builder.download import download_reuters, resolve_corpus
from graph_builder.errors import CorpusError


@pytest.fixture(scope="module")
def served(reuters_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A loopback HTTP server with the archive laid out as the public one (plus a broken file)."""
    root = tmp_path_factory.mktemp("www")
    with tarfile.open(root / "reuters21578.tar.gz", "w:gz") as tar:
        for path in sorted(reuters_dir.glob("reut2-*.sgm")):
            tar.add(path, arcname=path.name)
        tar.add(reuters_dir / "README.txt", arcname="README.txt")
    (root / "broken.tar.gz").write_bytes(b"this is not gzip")
    with tarfile.open(root / "other.tar.gz", "w:gz") as tar:
        tar.add(reuters_dir / "README.txt", arcname="README.txt")
    altered = root / "reut2-007.sgm"  # one article's text changed by a byte: not the distribution any more
    altered.write_bytes((reuters_dir / "reut2-007.sgm").read_bytes().replace(b"<BODY>", b"<BODY> ", 1))
    with tarfile.open(root / "altered.tar.gz", "w:gz") as tar:
        for path in sorted(reuters_dir.glob("reut2-*.sgm")):
            tar.add(altered if path.name == altered.name else path, arcname=path.name)
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_download_unpacks_every_sgm_file(served: str, reuters_dir: Path, tmp_path: Path) -> None:
    folder = download_reuters(tmp_path / "corpus", f"{served}/reuters21578.tar.gz")
    files = sorted(p.name for p in folder.glob("reut2-*.sgm"))
    assert len(files) == 22 and files[0] == "reut2-000.sgm" and files[-1] == "reut2-021.sgm"
    assert (folder / "reut2-017.sgm").read_bytes() == (reuters_dir / "reut2-017.sgm").read_bytes()
    assert not (folder / "README.txt").exists() and not list(folder.glob("*.part"))
    # A complete folder is reused: a second call with a dead URL does not download.
    assert download_reuters(folder, "http://127.0.0.1:9/none.tar.gz") == folder
    # One whose files were changed is downloaded again.
    (folder / "reut2-003.sgm").write_bytes(b"")
    assert download_reuters(folder, f"{served}/reuters21578.tar.gz") == folder
    assert (folder / "reut2-003.sgm").read_bytes() == (reuters_dir / "reut2-003.sgm").read_bytes()


@pytest.mark.parametrize(("name", "needle"), [("missing.tar.gz", "HTTP 404"), ("broken.tar.gz", "not a readable"),
                                              ("other.tar.gz", "no reut2-"),
                                              ("altered.tar.gz", "not Reuters-21578 Distribution 1.0")])
def test_bad_downloads_are_clear_errors(served: str, tmp_path: Path, name: str, needle: str) -> None:
    with pytest.raises(CorpusError, match=needle):
        download_reuters(tmp_path / "c", f"{served}/{name}")
    assert not list((tmp_path / "c").glob("*"))


def test_resolve_prefers_path_then_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reuters_dir: Path) -> None:
    assert resolve_corpus(reuters_dir, tmp_path) == reuters_dir
    monkeypatch.setenv("EGQA_CORPUS", str(reuters_dir))
    assert resolve_corpus(None, tmp_path) == reuters_dir
    monkeypatch.setenv("EGQA_CORPUS", str(tmp_path / "nowhere"))
    with pytest.raises(CorpusError, match="EGQA_CORPUS"):
        resolve_corpus(None, tmp_path)
