#!/usr/bin/env bash
# Build and run the deployment's containers on a machine without a Docker engine or registry access:
# podman with runc, on a Debian base image made with debootstrap (see docs/deployment.md, "The container stage").
#
#   scripts/containers.sh setup                 # install every prerequisite below (root, apt), then check
#   scripts/containers.sh check                 # exit 1 naming each missing prerequisite and its package
#   scripts/containers.sh prerequisites         # print the table: package, what it provides, why
#   scripts/containers.sh rootfs                # make (once, cached) a bare Debian root tarball; print its path
#   scripts/containers.sh base                  # build (once, cached) the Debian base image; print its name
#   scripts/containers.sh egqa TAG [LABEL]      # build the project's Dockerfile on the base as TAG
#   scripts/containers.sh elasticsearch TAG [LABEL]  # an Elasticsearch 8.x test image (Maven Central zip)
#   scripts/containers.sh env                   # print the environment podman must run with (eval it)
#   scripts/containers.sh clean                 # remove the cached images and files (the next build is cold)
#
# Cached between runs (kept by the test stage): the base image and the slow stages of both images (egqa's
# dependencies, Elasticsearch's JDK), tagged localhost/egqa-cache/*. Podman's layer cache makes them cost
# nothing until their inputs change. LABEL (key=value) marks the images a caller builds, to remove them later.
#
# Settings (environment):
#   EGQA_CONTAINERS_CACHE  cache folder outside the repo (default ~/.cache/egqa-containers): containers.conf,
#                          the base rootfs tarball, the Elasticsearch distribution
#   EGQA_DEBIAN_MIRROR     Debian mirror for debootstrap (default http://deb.debian.org/debian)
#   EGQA_ES_VERSION        Elasticsearch version (default 8.8.2)
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE="${EGQA_CONTAINERS_CACHE:-$HOME/.cache/egqa-containers}"
MIRROR="${EGQA_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
SUITE=bookworm
# What the base carries beyond minbase: Python 3.11 as python:3.11-slim has it (python, venv, CA certificates).
BASE_PACKAGES="python3,python3-venv,python-is-python3,ca-certificates"
# Bump when the recipe changes: the image name carries it, so a new recipe never reuses an old base.
BASE_VERSION=1
DEPS_IMAGE="localhost/egqa-cache/egqa-deps:latest"
JDK_IMAGE="localhost/egqa-cache/elasticsearch-jdk:latest"
ES_VERSION="${EGQA_ES_VERSION:-8.8.2}"
CONF="$CACHE/containers.conf"

log() { echo "[containers.sh] $*" >&2; }
die() { log "error: $*"; exit 1; }

write_conf() {
  # crun fails here on rlimits and cgroups: runc with cgroupfs, no default ulimits.
  mkdir -p "$CACHE"
  cat >"$CONF.tmp" <<'CONF'
[containers]
default_ulimits = []
[engine]
cgroup_manager = "cgroupfs"
runtime = "runc"
[network]
network_backend = "netavark"
CONF
  mv "$CONF.tmp" "$CONF"
}

podman_() { CONTAINERS_CONF="$CONF" podman "$@"; }
# Docker's image format: OCI's has no HEALTHCHECK, and podman would drop the Dockerfile's.
build_() { podman_ build --format docker "$@"; }

# Every program the container stage runs that a bare Debian machine lacks, one row each:
#   Debian package | the file it provides that is checked | why the stage needs it
# setup installs exactly these and check looks for exactly these, so no prerequisite can come from elsewhere
# unnoticed (tests/deploy/test_prerequisites.py runs setup and check in a bare Debian root). apt-get runs with
# --no-install-recommends, so a package podman only recommends or suggests must be a row of its own: iptables,
# a "Suggests" of podman, is what netavark calls to set up a container's network on every RUN step.
PREREQUISITES="\
podman|/usr/bin/podman|builds the images and runs the containers
runc|/usr/sbin/runc|the OCI runtime (crun fails on these machines' rlimits and cgroups)
netavark|/usr/lib/podman/netavark|podman's network stack, used by every RUN step and container
aardvark-dns|/usr/lib/podman/aardvark-dns|name resolution between the compose project's containers
iptables|/usr/sbin/iptables|the firewall netavark programs for each container network
debootstrap|/usr/sbin/debootstrap|makes the Debian base image without a registry
podman-compose|/usr/bin/podman-compose|runs docker-compose.yml
"

prerequisite_rows() { printf '%s' "$PREREQUISITES" | grep -v '^$'; }

missing_packages() {
  # The packages whose checked file is absent or not executable, one per line.
  local package path why
  while IFS='|' read -r package path why; do
    [[ -x "$path" ]] || echo "$package"
  done < <(prerequisite_rows)
}

cmd_prerequisites() {
  local package path why
  while IFS='|' read -r package path why; do
    printf '%-15s %-30s %s\n' "$package" "$path" "$why"
  done < <(prerequisite_rows)
}

cmd_check() {
  local package path why missing=0
  while IFS='|' read -r package path why; do
    if [[ ! -x "$path" ]]; then
      log "missing: $path (Debian package $package; $why)"
      missing=1
    fi
  done < <(prerequisite_rows)
  if [[ "$missing" == 1 ]]; then
    die "the container stage cannot run; install the missing packages with: scripts/containers.sh setup (as root)"
  fi
  log "all $(prerequisite_rows | wc -l) prerequisites present: $(prerequisite_rows | cut -d'|' -f1 | xargs)"
}

cmd_setup() {
  local need=()
  mapfile -t need < <(missing_packages)
  if [[ ${#need[@]} -gt 0 ]]; then
    [[ "$(id -u)" == 0 ]] || die "missing ${need[*]}; install as root: apt-get install -y ${need[*]}"
    log "installing Debian packages: ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  fi
  cmd_check
  write_conf
  podman_ info --format '{{.Host.OCIRuntime.Name}} {{.Host.CgroupManager}} {{.Host.NetworkBackend}}' >&2
}

host_ca_files() { compgen -G '/usr/local/share/ca-certificates/*.crt' || true; }

base_image() {
  # The machine's own CAs (a TLS-inspecting proxy's, say) are part of the base: key the name by them.
  local key
  key="$(host_ca_files | sort | xargs -r cat | sha256sum | cut -c1-8)"
  echo "localhost/egqa-cache/base:$SUITE-v$BASE_VERSION-$key"
}

clear_stale_rootfs() {
  # A debootstrap stopped half-way leaves its folder with /proc still mounted in it: unmount, then remove
  # without crossing into any other file system.
  local dir pid
  for dir in "$CACHE"/rootfs.*; do
    [[ -d "$dir" ]] || continue
    pid="${dir##*.}"
    if kill -0 "$pid" 2>/dev/null; then continue; fi
    awk -v root="$dir/" 'index($2, root) == 1 {print $2}' /proc/mounts | sort -r | xargs -r -n1 umount -l
    rm -rf --one-file-system "$dir"
  done
}

cmd_rootfs() {
  # The bare Debian root (debootstrap minbase + BASE_PACKAGES) as a tarball, made once and cached; print its path.
  local tarball="$CACHE/rootfs-$SUITE-v$BASE_VERSION.tar"
  if [[ ! -f "$tarball" ]]; then
    local rootfs="$CACHE/rootfs.$$"
    mkdir -p "$CACHE"
    clear_stale_rootfs
    log "debootstrap --variant=minbase $SUITE ($BASE_PACKAGES) from $MIRROR"
    debootstrap --variant=minbase --include="$BASE_PACKAGES" "$SUITE" "$rootfs" "$MIRROR" >&2
    # Package lists and downloaded .debs are build-time leftovers; apt-get update restores the lists.
    rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/apt/*.bin
    tar -C "$rootfs" -cf "$tarball.tmp" .
    mv "$tarball.tmp" "$tarball"
    rm -rf "$rootfs"
  fi
  echo "$tarball"
}

cmd_base() {
  [[ -f "$CONF" ]] || write_conf
  local image rootfs_image="localhost/egqa-cache/rootfs:$SUITE-v$BASE_VERSION"
  image="$(base_image)"
  if podman_ image exists "$image"; then
    echo "$image"
    return 0
  fi
  if ! podman_ image exists "$rootfs_image"; then
    local tarball
    tarball="$(cmd_rootfs)"
    podman_ import --quiet "$tarball" "$rootfs_image" >/dev/null
  fi
  # Inside a build pip and apt reach the registries the host reaches, through the same proxy: trust its CAs.
  local context
  context="$(mktemp -d)"
  mkdir "$context/ca"
  host_ca_files | xargs -r cp -t "$context/ca"
  cat >"$context/Containerfile" <<CONTAINERFILE
FROM $rootfs_image
COPY ca/ /usr/local/share/ca-certificates/
RUN update-ca-certificates >/dev/null 2>&1
ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt
CONTAINERFILE
  build_ --quiet -t "$image" "$context" >/dev/null
  rm -rf "$context"
  echo "$image"
}

build_cache() {
  # Build a slow stage under its cache tag; drop the image that tag named before, once nothing uses it.
  local name="$1" old new
  shift
  old="$(podman_ image inspect --format '{{.Id}}' "$name" 2>/dev/null || true)"
  build_ --layers -t "$name" "$@" >&2
  new="$(podman_ image inspect --format '{{.Id}}' "$name")"
  if [[ -n "$old" && "$old" != "$new" ]]; then
    podman_ rmi "$old" >/dev/null 2>&1 || log "kept the previous $name ($old): still in use"
  fi
}

labels() { [[ -n "${1:-}" ]] && echo "--label=$1" || true; }

cmd_egqa() {
  local tag="${1:?usage: containers.sh egqa TAG [LABEL]}" base
  base="$(cmd_base)"
  build_cache "$DEPS_IMAGE" --target deps --build-arg "PYTHON_IMAGE=$base" -f Dockerfile .
  build_ --layers --build-arg "PYTHON_IMAGE=$base" $(labels "${2:-}") -t "$tag" -f Dockerfile . >&2
}

es_dist() {
  # The integ-test-zip from Maven Central (scripts/elasticsearch.sh fetches it; ~/.m2 caches the zip).
  local home="$CACHE/elasticsearch"
  if [[ ! -x "$home/elasticsearch-$ES_VERSION/bin/elasticsearch" ]]; then
    EGQA_ES_HOME="$home" EGQA_ES_VERSION="$ES_VERSION" bash scripts/elasticsearch.sh install
  fi
  echo "$home/elasticsearch-$ES_VERSION"
}

cmd_elasticsearch() {
  local tag="${1:?usage: containers.sh elasticsearch TAG [LABEL]}" base dist context
  base="$(cmd_base)"
  dist="$(es_dist)"
  context="$(mktemp -d)"
  cp -a tests/deploy/containers/elasticsearch/. "$context/"
  cp -a "$dist" "$context/elasticsearch"
  build_cache "$JDK_IMAGE" --target jdk --build-arg "BASE_IMAGE=$base" "$context"
  build_ --layers --build-arg "BASE_IMAGE=$base" $(labels "${2:-}") -t "$tag" "$context" >&2
  rm -rf "$context"
}

cmd_clean() {
  local image
  for image in "$DEPS_IMAGE" "$JDK_IMAGE" "$(base_image)" "localhost/egqa-cache/rootfs:$SUITE-v$BASE_VERSION"; do
    if podman_ image exists "$image"; then podman_ rmi "$image" >&2; fi
  done
  rm -rf "$CACHE/rootfs-$SUITE-v$BASE_VERSION.tar" "$CACHE/elasticsearch"
}

cmd_env() {
  [[ -f "$CONF" ]] || write_conf
  echo "export CONTAINERS_CONF=$CONF"
}

main() {
  case "${1:-}" in
    setup) cmd_setup ;;
    check) cmd_check ;;
    prerequisites) cmd_prerequisites ;;
    base) cmd_base ;;
    rootfs) cmd_rootfs ;;
    egqa) cmd_egqa "${2:-}" "${3:-}" ;;
    elasticsearch) cmd_elasticsearch "${2:-}" "${3:-}" ;;
    env) cmd_env ;;
    clean) cmd_clean ;;
    *) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
}

# One line: bash reads a script as it runs, so an edit made during a long build cannot change what runs next.
main "$@"; exit $?
