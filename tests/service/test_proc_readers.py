"""The /proc readers the benchmarks report service memory with."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from service.demo import rss_breakdown, rss_mb


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
