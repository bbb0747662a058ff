"""Property-based fuzzing of the REST API from its own OpenAPI document (schemathesis, fixed seed).

Every operation gets schema-valid requests (positive) and schema-violating ones (negative) generated
deterministically; no response may be a 5xx, and every response must match the documented status codes,
content type, headers and body schema.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.generation import GenerationMode

from service.app import create_app
from tests.service.live import live_server
from tests.service.test_ingest import live_settings

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_headers_conformance,
          response_schema_conformance]
# Examples per operation and mode; operations without inputs stop after their few distinct requests.
EXAMPLES = {GenerationMode.POSITIVE: 200, GenerationMode.NEGATIVE: 80}


# Operations that change the service's state (articles into its store, the live graph set) are fuzzed on a
# service of their own over an empty store, so the shared store the other tests read stays as built.
def _writes(path: str, operation: dict[str, object]) -> bool:
    return "ingest" in operation.get("tags", []) or path == "/v1/admin/reload"  # type: ignore[operator]


def fuzz(client: TestClient, include: Callable[[str, dict[str, object]], bool]) -> tuple[Counter[str], Counter[int]]:
    """Fuzz the app's included operations over a real socket; return requests per operation and statuses."""
    app = client.app  # already started (its lifespan opened graphs and store)
    spec = client.get("/openapi.json").json()
    schema = schemathesis.openapi.from_dict(spec)
    sent: Counter[str] = Counter()
    statuses: Counter[int] = Counter()
    with live_server(app, lifespan="off") as (host, port):  # type: ignore[arg-type]
        base_url = f"http://{host}:{port}"
        for result in schema.get_all_operations():
            operation = result.ok()
            documented = spec["paths"][operation.path][operation.method.lower()]
            if not include(operation.path, documented):
                continue
            for mode, examples in EXAMPLES.items():
                if mode is GenerationMode.NEGATIVE and not ({"parameters", "requestBody"} & set(documented)):
                    continue  # nothing to get wrong in a request without inputs
                checks = CHECKS if mode is GenerationMode.POSITIVE else [not_a_server_error]

                @settings(max_examples=examples, derandomize=True, database=None, deadline=None,
                          suppress_health_check=list(HealthCheck))
                @given(case=operation.as_strategy(generation_mode=mode))
                def run(case: schemathesis.Case) -> None:
                    response = case.call_and_validate(base_url=base_url, checks=checks, timeout=30)
                    sent[operation.label] += 1
                    statuses[response.status_code] += 1

                run()
    print(f"schemathesis: {sum(sent.values())} requests over {len(sent)} operations {dict(sent)}; "
          f"statuses {dict(sorted(statuses.items()))}")
    return sent, statuses


def test_fuzzed_requests_get_no_5xx_and_match_the_schema(fixture_client: TestClient) -> None:
    spec = fixture_client.get("/openapi.json").json()
    sent, statuses = fuzz(fixture_client, lambda path, operation: not _writes(path, operation))
    assert len(sent) == len([op for path, ops in spec["paths"].items() for op in ops.values() if not _writes(path, op)])
    assert sum(sent.values()) >= 1000
    assert not [s for s in statuses if s >= 500]


def test_fuzzed_ingestion_and_reload_requests_get_no_5xx_and_match_the_schema(tmp_path: Path) -> None:
    with TestClient(create_app(live_settings(tmp_path))) as client:
        spec = client.get("/openapi.json").json()
        sent, statuses = fuzz(client, _writes)
        assert len(sent) == len([op for path, ops in spec["paths"].items() for op in ops.values() if _writes(path, op)])
        assert sum(sent.values()) >= 300
        assert not [s for s in statuses if s >= 500]
        # Whatever was accepted was extracted: the windows it made are real dates, the store still answers.
        assert client.get("/v1/windows").status_code == 200
