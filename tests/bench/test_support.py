"""The process readers the benchmarks and tests report service memory and files with."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from bench._support import open_files, rss_breakdown, rss_mb


def test_rss_breakdown_attributes_a_mapped_file_to_its_folder(tmp_path: Path) -> None:
    """A 64 MB file mapped and read counts under its folder, and the parts add up to the process RSS."""
    folder = tmp_path / "graphs"
    folder.mkdir()
    np.ones(64 * 2**20 // 8, dtype=np.float64).tofile(folder / "data.bin")
    mapped = np.memmap(folder / "data.bin", dtype=np.float64, mode="r")
    assert float(mapped.sum()) == mapped.size  # touch every page
    parts = rss_breakdown(os.getpid(), {"graphs": folder})
    assert 63.0 <= parts["graphs"] <= 64.5
    assert parts["anonymous"] > 10 and parts["libraries"] > 10
    assert abs(sum(parts.values()) - rss_mb(os.getpid())) < 0.1 * rss_mb(os.getpid())
    del mapped


def test_open_files_counts_the_descriptors_on_one_file(tmp_path: Path) -> None:
    """Two handles on one file count two; a handle on another file does not count."""
    path, other = tmp_path / "evidence.db", tmp_path / "other.db"
    path.write_bytes(b"x")
    other.write_bytes(b"y")
    with path.open("rb"), path.open("rb"), other.open("rb"):
        assert open_files(os.getpid(), path) == 2
    assert open_files(os.getpid(), path) == 0
