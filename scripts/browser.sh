#!/usr/bin/env bash
# What the browser tests (pytest marker `browser`) need on a bare Debian machine: Debian's Chromium and
# Playwright for Python, pinned. Playwright's own browser download is not used (`playwright install` fetches
# from a CDN); the tests point Playwright at Debian's binary instead (see docs/web.md).
#
#   scripts/browser.sh setup    # apt-get install chromium (root), pip install the pinned packages, then check
#   scripts/browser.sh check    # exit 1 naming what is missing
#   scripts/browser.sh path     # print the Chromium binary the tests launch
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
# Pinned: playwright 1.65.2 drives Debian bookworm's Chromium (156); a later release may not. The tests use
# Playwright's sync API through fixtures of their own (tests/web/conftest.py), not the pytest-playwright plugin,
# so that a machine without a browser skips (or, in CI, fails) with a message rather than a missing fixture.
PIP_PACKAGES="playwright==1.65.2"
# The real binary first: /usr/bin/chromium is a wrapper script that prints shell noise on stderr.
CHROMIUM_PATHS="/usr/lib/chromium/chromium /usr/bin/chromium"

log() { echo "[browser.sh] $*" >&2; }
die() { log "error: $*"; exit 1; }

chromium_path() {
  local p
  for p in $CHROMIUM_PATHS; do
    if [[ -x "$p" ]]; then echo "$p"; return 0; fi
  done
  return 1
}

python_ready() { "$PYTHON" -c 'import playwright.sync_api' 2>/dev/null; }

cmd_check() {
  local missing=0
  chromium_path >/dev/null || { log "missing: Chromium (Debian package chromium)"; missing=1; }
  python_ready || { log "missing: Python packages $PIP_PACKAGES"; missing=1; }
  [[ "$missing" == 0 ]] || die "the browser tests cannot run; install with: scripts/browser.sh setup (as root)"
  log "Chromium $(chromium_path) and $("$PYTHON" -m pip show playwright 2>/dev/null | sed -n 's/^Version: /playwright /p')"
}

cmd_setup() {
  if ! chromium_path >/dev/null; then
    [[ "$(id -u)" == 0 ]] || die "Chromium missing; install as root: apt-get install -y --no-install-recommends chromium"
    command -v apt-get >/dev/null || die "Chromium missing and no apt-get here: install a Chromium and set EGQA_CHROMIUM"
    log "installing Debian package: chromium"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
  fi
  if ! python_ready; then
    log "installing Python packages: $PIP_PACKAGES"
    # shellcheck disable=SC2086
    "$PYTHON" -m pip install --quiet --disable-pip-version-check $PIP_PACKAGES
  fi
  cmd_check
}

case "${1:-}" in
  setup) cmd_setup ;;
  check) cmd_check ;;
  path) chromium_path || die "no Chromium found (tried $CHROMIUM_PATHS)" ;;
  *) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
