#!/usr/bin/env bash
# A bare Debian machine in a folder: proves that the container stage's prerequisites come from
# `scripts/containers.sh setup` and from nothing else on the machine that runs the tests.
#
#   tests/deploy/containers/bare-machine.sh ROOTFS_TAR WORK
#
# ROOTFS_TAR is a debootstrap minbase root (`scripts/containers.sh rootfs`). In WORK/root, chrooted, in mount
# and PID namespaces of its own (so nothing it mounts outlives it):
#   1. `containers.sh check` must fail, naming what is missing (a bare root has none of it);
#   2. `apt-get update`, then `containers.sh setup`, which installs and checks;
#   3. in a network namespace of its own as well (netavark's bridge and firewall rules stay there), podman
#      builds an image with a RUN step and runs a container: the steps that fail without iptables.
# Prints one line per phase, prefixed "bare-machine:", for the test to read. Needs root.
set -euo pipefail
ROOTFS_TAR="${1:?usage: bare-machine.sh ROOTFS_TAR WORK}"
WORK="${2:?usage: bare-machine.sh ROOTFS_TAR WORK}"
REPO="$(cd "$(dirname "$0")/../../.." && pwd)"
ROOT="$WORK/root"

mkdir -p "$ROOT"
tar -C "$ROOT" -xf "$ROOTFS_TAR"
mkdir -p "$ROOT/opt/egqa/scripts" "$ROOT/opt/image"
cp "$REPO/scripts/containers.sh" "$ROOT/opt/egqa/scripts/"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
# A TLS-inspecting proxy's CAs, as the base image carries them (apt here is plain http; pip is not used).
compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null && cp /usr/local/share/ca-certificates/*.crt \
  "$ROOT/usr/local/share/ca-certificates/"
cat >"$ROOT/opt/image/Containerfile" <<'CONTAINERFILE'
FROM localhost/bare-machine/rootfs:latest
RUN echo built > /built
CONTAINERFILE

# Runs inside the namespaces: mounts the kernel's file systems into the root, then runs $1 there.
inside() {
  local script="$1"
  unshare --mount --pid --fork "${@:2}" bash -euo pipefail -c '
    root="$1"; script="$2"
    mount --make-rprivate /
    mount --bind "$root" "$root"  # its own mount point, as a machine'"'"'s / is: podman remounts it when it unpacks layers
    mount -t proc proc "$root/proc"
    mount --rbind /sys "$root/sys"
    mount --rbind /dev "$root/dev"
    mount -t tmpfs tmpfs "$root/run"
    mount -t tmpfs tmpfs "$root/tmp"
    exec chroot "$root" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
      http_proxy="${http_proxy:-}" https_proxy="${https_proxy:-}" bash -euo pipefail -c "$script"
  ' bash "$ROOT" "$script"
}

inside '
  if out="$(bash /opt/egqa/scripts/containers.sh check 2>&1)"; then
    echo "bare-machine: check passed on a bare root: $out"; exit 1
  fi
  echo "bare-machine: before setup, check says: $(echo "$out" | grep -o "Debian package [a-z-]*" | cut -d" " -f3 | xargs)"
'
inside '
  apt-get update -qq
  bash /opt/egqa/scripts/containers.sh setup 2>&1 | sed "s/^/bare-machine: setup: /"
'
cp "$ROOTFS_TAR" "$ROOT/opt/image/rootfs.tar"
inside '
  eval "$(bash /opt/egqa/scripts/containers.sh env)"
  podman import --quiet /opt/image/rootfs.tar localhost/bare-machine/rootfs:latest >/dev/null
  rm /opt/image/rootfs.tar
  podman build --quiet --format docker -t localhost/bare-machine/image:latest /opt/image >/dev/null
  echo "bare-machine: container says: $(podman run --rm localhost/bare-machine/image:latest cat /built)"
' --net
echo "bare-machine: done"
