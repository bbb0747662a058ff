"""The container stage's prerequisites come from `scripts/containers.sh setup` and from nothing else.

A bare Debian root (debootstrap minbase, the same root the base image starts from) is unpacked into a folder
and entered with chroot, in namespaces of its own: there `containers.sh check` must fail, `containers.sh
setup` must install everything, and podman must then build an image with a RUN step and run a container.
Without a row of the script's prerequisite table (iptables, say) the build fails as on a fresh machine:
`netavark: No such file or directory`. Needs root on Debian, as the rest of the stage does.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.deploy.deployfiles import REPO

pytestmark = [pytest.mark.containers, pytest.mark.timeout(1800)]

SCRIPT = REPO / "scripts" / "containers.sh"
BARE_MACHINE = REPO / "tests" / "deploy" / "containers" / "bare-machine.sh"
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def _prerequisites() -> list[str]:
    """The Debian packages of the script's prerequisite table, in its order."""
    table = subprocess.run(["bash", str(SCRIPT), "prerequisites"], capture_output=True, text=True, check=True)
    return [line.split()[0] for line in table.stdout.splitlines()]


def test_the_table_names_what_podman_only_suggests_or_recommends() -> None:
    # apt-get runs with --no-install-recommends: iptables (a Suggests of podman) must be a row of its own.
    assert {"podman", "runc", "netavark", "aardvark-dns", "iptables", "debootstrap", "podman-compose"} <= set(
        _prerequisites())


def test_a_bare_debian_root_runs_a_container_after_setup_alone(tmp_path: Path) -> None:
    if os.geteuid() != 0 or shutil.which("unshare") is None or shutil.which("apt-get") is None:
        reason = "needs root, unshare and apt-get (a Debian machine) to make a bare Debian root"
        if IN_CI:
            pytest.fail(f"CI=true but {reason}", pytrace=False)
        pytest.skip(reason)
    rootfs = subprocess.run(["bash", str(SCRIPT), "rootfs"], capture_output=True, text=True, timeout=1500)
    assert rootfs.returncode == 0, rootfs.stderr
    work = tmp_path / "bare"
    try:
        run = subprocess.run(["bash", str(BARE_MACHINE), rootfs.stdout.strip(), str(work)], capture_output=True,
                             text=True, timeout=1200)
        lines = [line.removeprefix("bare-machine: ") for line in run.stdout.splitlines()
                 if line.startswith("bare-machine: ")]
        assert run.returncode == 0, f"{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
        # Before setup, check names every package of the table as missing: the root really is bare.
        assert f"before setup, check says: {' '.join(_prerequisites())}" in lines
        assert any(line.startswith("setup: [containers.sh] all ") for line in lines)
        assert "container says: built" in lines  # a RUN step and a container ran on a bridge network
    finally:
        shutil.rmtree(work, ignore_errors=True)
