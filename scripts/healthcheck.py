"""Container health probe: exit 0 when the service's GET /ready answers 200 (it can answer), else 1 (no curl needed).

Not /health: a service whose graphs or store failed to open is alive, but it is not healthy.
"""

from __future__ import annotations

import sys
import urllib.error
import urllib.request

from service.settings import Settings

# An address the server listens on for every interface is reached through loopback.
_ANY = {"0.0.0.0", "::", "", "localhost"}


def health_url(settings: Settings) -> str:
    """Return the /ready URL of the server these settings start."""
    host = "127.0.0.1" if settings.host in _ANY else settings.host
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{settings.port}/ready"


def main(timeout: float = 4.0) -> int:
    """Probe /ready once; print why it failed (Docker keeps the output in `docker inspect`)."""
    url = health_url(Settings())
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            status = response.status
    except urllib.error.HTTPError as exc:  # 503: alive but not ready
        print(f"unhealthy: {url}: HTTP {exc.code}: {exc.read()[:300].decode(errors='replace')}", file=sys.stderr)
        return 1
    except (urllib.error.URLError, OSError) as exc:
        print(f"unhealthy: {url}: {exc}", file=sys.stderr)
        return 1
    if status != 200:
        print(f"unhealthy: {url}: HTTP {status}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
