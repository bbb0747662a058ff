"""uvicorn's supervisor of several worker processes (`EGQA_WORKERS` > 1), in an interpreter that imports little.

`egqa serve` replaces itself with `python -m service.supervise` before starting workers: the command line has
imported every command's modules (the graph builder, spaCy, scipy, pyarrow), which the supervisor never uses and
would otherwise hold in memory beside the workers (175 MB against about 50 MB here). Each worker builds its own
app from the environment (`service.app:app_from_env`), where `egqa serve` put its options as EGQA_* variables."""

from __future__ import annotations

from typing import Any

from uvicorn.supervisors import Multiprocess

from service.protocol import ServingConfig, limits_for
from service.settings import Settings, load_settings


def serving_options(settings: Settings) -> dict[str, Any]:
    """uvicorn's options from the settings: the address, the workers and the service's HTTP limits."""
    limits = limits_for(settings.max_request_line, settings.max_headers, settings.max_header_bytes,
                        settings.header_timeout, settings.body_timeout, settings.max_connections)
    return {"limits": limits, "host": settings.host, "port": settings.port, "log_level": settings.log_level,
            "workers": settings.workers}


def main() -> None:
    """Bind the socket and run the workers, each building its app from the environment, until a signal stops them."""
    config = ServingConfig("service.app:app_from_env", factory=True, **serving_options(load_settings()))
    Multiprocess(config, sockets=[config.bind_socket()]).run()


if __name__ == "__main__":
    main()
