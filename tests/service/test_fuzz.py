"""Property-based fuzzing of the REST API from its own OpenAPI document (schemathesis, fixed seed).

Every operation gets schema-valid requests (positive) and schema-violating ones (negative) generated
deterministically; no response may be a 5xx, and every response must match the documented status codes,
content type, headers and body schema.
"""

from __future__ import annotations

from collections import Counter

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

from tests.service.live import live_server

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_headers_conformance,
          response_schema_conformance]
# Examples per operation and mode; operations without inputs stop after their few distinct requests.
EXAMPLES = {GenerationMode.POSITIVE: 200, GenerationMode.NEGATIVE: 80}


def test_fuzzed_requests_get_no_5xx_and_match_the_schema(client: TestClient) -> None:
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
    assert len(sent) == len([op for ops in spec["paths"].values() for op in ops])
    assert sum(sent.values()) >= 1000
    assert not [s for s in statuses if s >= 500]
