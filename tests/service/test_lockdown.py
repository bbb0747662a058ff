"""Deployment lock-down: the key from a secrets file, no open bind without a key, Elasticsearch credentials kept
out of URLs, messages and the environment."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from graph_builder.errors import InputError
from retrieval.backends.elasticsearch import ElasticsearchStore
from service.app import create_app
from service.settings import is_loopback, load_settings

REPO = Path(__file__).resolve().parents[2]
KEY = "file-key-" + "q" * 23


def _secret(tmp_path: Path, text: str, name: str = "key") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_the_key_is_read_from_its_file_and_guards_the_api(tmp_path: Path) -> None:
    settings = load_settings(api_key_file=_secret(tmp_path, KEY + "\n"), graphs_dir=tmp_path / "none",
                             store_url=f"sqlite:///{tmp_path / 'none.db'}", lm=False)
    assert settings.api_key is not None and settings.api_key.get_secret_value() == KEY  # newline dropped
    with TestClient(create_app(settings)) as http:
        assert http.get("/v1/windows").status_code == 401
        assert http.get("/v1/windows", headers={"X-API-Key": KEY}).status_code == 503  # past the key: not ready


def test_key_and_key_file_together_are_refused_without_echoing_either(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="EGQA_API_KEY and EGQA_API_KEY_FILE are both set") as caught:
        load_settings(api_key="x" * 20, api_key_file=_secret(tmp_path, KEY))
    assert KEY not in str(caught.value) and "x" * 20 not in str(caught.value)


@pytest.mark.parametrize(("content", "problem"), [("short\n", "at least 16 characters"), ("\n", "is empty")])
def test_a_bad_key_file_is_refused_without_its_content_or_path(tmp_path: Path, content: str, problem: str) -> None:
    path = _secret(tmp_path, content)
    with pytest.raises(InputError, match=f"EGQA_API_KEY_FILE: .*{problem}") as caught:
        load_settings(api_key_file=path)
    assert str(tmp_path) not in str(caught.value) and "short" not in str(caught.value)


def test_a_missing_key_file_is_named_by_its_variable_not_its_path(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"EGQA_API_KEY_FILE: the file cannot be read \(No such file") as caught:
        load_settings(api_key_file=tmp_path / "absent")
    assert str(tmp_path) not in str(caught.value)


def test_serving_beyond_loopback_without_a_key_is_refused_in_one_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EGQA_")}
    env.update({"PYTHONPATH": str(REPO), "EGQA_HOST": "0.0.0.0", "EGQA_LM": "false"})
    served = subprocess.run([sys.executable, "-m", "service", "serve"], env=env, capture_output=True, text=True,
                            timeout=120, cwd=tmp_path)
    assert served.returncode != 0
    lines = [line for line in served.stderr.splitlines() if "EGQA_ALLOW_OPEN_BIND" in line]
    assert len(lines) == 1 and "EGQA_HOST=0.0.0.0" in lines[0] and "EGQA_API_KEY_FILE" in lines[0], served.stderr
    assert "Traceback" not in served.stderr


def test_open_bind_needs_a_key_or_the_explicit_setting(tmp_path: Path) -> None:
    assert load_settings(host="0.0.0.0", allow_open_bind=True).api_key is None
    assert load_settings(host="0.0.0.0", api_key_file=_secret(tmp_path, KEY)).host == "0.0.0.0"
    for host in ("127.0.0.1", "127.0.0.5", "::1", "localhost"):
        assert is_loopback(host) and load_settings(host=host).host == host
    for host in ("0.0.0.0", "::", "192.168.1.4", "egqa.example.org"):
        assert not is_loopback(host)
        with pytest.raises(InputError, match="EGQA_ALLOW_OPEN_BIND"):
            load_settings(host=host)


def _authorization(store: ElasticsearchStore) -> str:
    return str(dict(store.client._headers).get("authorization", ""))  # the header every request carries


def test_elasticsearch_credentials_travel_as_basic_auth_and_stay_out_of_messages() -> None:
    inline = ElasticsearchStore.from_url("http://egqa:s3cr%40t@localhost:9/prefix")
    assert _authorization(inline) == "Basic " + base64.b64encode(b"egqa:s3cr@t").decode()
    assert inline.hosts == "http://localhost:9" and inline.prefix == "prefix"
    from_file = ElasticsearchStore.from_url("http://egqa@localhost:9", password="from-a-file")
    assert _authorization(from_file) == "Basic " + base64.b64encode(b"egqa:from-a-file").decode()
    with pytest.raises(InputError, match="EGQA_STORE_PASSWORD_FILE"):
        ElasticsearchStore.from_url("http://egqa@localhost:9")
    with pytest.raises(Exception) as caught:  # nothing listens on port 9: the error names the host only
        inline.stats()
    assert "s3cr" not in str(caught.value) and "localhost:9" in str(caught.value)
    anonymous = ElasticsearchStore.from_url("http://localhost:9")
    assert _authorization(anonymous) == ""
