"""Service settings, read from `EGQA_*` environment variables (or a `.env` file) and validated at start-up."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from graph_builder.errors import InputError
from graph_builder.windows import DATE_DAYS, DEFAULT_DATE_DAYS


class Settings(BaseSettings):
    """Everything the service needs to start; each field is the env var `EGQA_<NAME>`."""

    model_config = SettingsConfigDict(env_prefix="EGQA_", env_file=".env", extra="ignore")

    graphs_dir: Path = Field(Path("out/demo/graphs"), description="Folder of entailment-graph artefacts.")
    extra_graphs: dict[str, Path] = Field({}, description="More graph sets, each an extra scorer "
                                          "named by its key, as JSON, e.g. {\"berant\": \"out/berant\"}.")
    lm: bool = Field(True, description="Load the sentence-embedding model (the `lm` extra) for the lm_cosine, "
                                       "+smooth and +lm scorers; without the extra these scorers are not offered.")
    smooth_k: int = Field(4, ge=1, le=100, description="Premise smoothing: nearest graph nodes an unseen premise is scored through.")
    smooth_min_cosine: float = Field(0.5, ge=-1.0, le=1.0, description="Premise smoothing: least cosine of a neighbour's predicate words.")
    store_url: str = Field("sqlite:///out/demo/evidence.db", description="Evidence store URL (sqlite:///path or http(s)://host:port[,host:port...][/prefix][?replicas=n]).")
    default_scorer: str | None = Field(None, description="Scorer when a request names none (default: the best measured that "
                                                 "the installation offers: combined where fitted, binc_clean+smooth+act+lm+dir, binc+act+lm+dir, "
                                                 "binc_clean+smooth+act, binc+act, else the graphs' default).")
    threshold: float = Field(0.05, ge=0.0, le=1.0, allow_inf_nan=False, description="Score at or above which the answer is true "
                             "(the combined scorer uses the threshold fitted with it).")
    window_days: int = Field(3, ge=1, description="Context window length the store was indexed with.")
    date_days: str = Field(
        DEFAULT_DATE_DAYS, description="The days a question given by `date` reads: `centred` (the window's length "
        "of days around the date: the day before, the day, the day after) or `window` (the disjoint window holding "
        "the date, as a benchmark entry given by `window` always reads).")
    max_batch: int = Field(1000, ge=1, description="Most hypotheses in one batch request.")
    max_text_chars: int = Field(2000, ge=10, description="Longest free-text proposition accepted.")
    max_evidence: int = Field(500, ge=1, description="Most evidence triples scored per hypothesis.")
    host: str = Field("127.0.0.1", description="Address `egqa serve` binds.")
    port: int = Field(8000, ge=1, le=65535, description="Port `egqa serve` binds.")
    workers: int = Field(1, ge=1, description="Uvicorn worker processes.")
    log_level: str = Field("info", description="Uvicorn log level.")
    api_key: SecretStr | None = Field(None, description="When set, every route but /health and /ready needs it (Authorization: Bearer or X-API-Key).")
    api_key_file: Path | None = Field(None, description="File holding the API key (e.g. a container secret); "
                                      "instead of EGQA_API_KEY, never with it.")
    allow_open_bind: bool = Field(False, description="Serve without an API key on an address beyond loopback "
                                  "(refused unless this is true).")
    store_password_file: Path | None = Field(None, description="File holding the Elasticsearch password of the "
                                             "user named in EGQA_STORE_URL (http://user@host:port).")
    max_body_bytes: int = Field(2_000_000, ge=1024, description="Largest request body accepted; bigger ones get 413 before they are read.")
    strict: bool = Field(False, description="Refuse to start when the graphs or the evidence store fail to open.")
    preload_parser: bool = Field(True, description="Load the spaCy parser at start, so the first free-text question "
                                 "waits for no model; false saves about 50 MB a worker where only structured "
                                 "propositions come (a batch evaluation), and loads it at the first question.")
    store_timeout: float = Field(1.0, gt=0.0, le=60.0, description="Seconds an evidence-store call may take before the request gets 503.")
    store_connections: int = Field(4, ge=1, le=64, description="Most SQLite connections the service holds open.")
    batch_concurrency: int = Field(1, ge=1, le=64, description="Batch requests judged at once in one worker process; "
                                   "the others wait their turn (batches share one interpreter lock, and side by side "
                                   "they only slow each other down). Batches of scorers that run the sentence model "
                                   "(lm_cosine, +smooth, +lm) are not held back.")
    ingest_queue: Path | None = Field(None, description="Durable queue of articles received over POST /v1/articles (a "
                                      "SQLite file; default: beside a SQLite store, evidence.db -> evidence.ingest.db; "
                                      "needed with Elasticsearch).")
    ingest_workers: int = Field(1, ge=1, le=64, description="Worker processes extracting received articles (one spaCy "
                                "pipeline each).")
    ingest_batch: int = Field(32, ge=1, le=1000, description="Most queued articles one worker extracts in one go.")
    ingest_max_pending: int = Field(10_000, ge=1, description="Most articles waiting for extraction; more get 429 with "
                                    "Retry-After.")
    ingest_max_articles: int = Field(500, ge=1, description="Most articles in one POST /v1/articles; more get 413.")
    max_request_line: int = Field(8192, ge=256, le=1_048_576, description="Longest request target (path and query) in "
                                  "bytes; longer ones get 414.")
    max_headers: int = Field(100, ge=10, le=10_000, description="Most header fields in a request; more get 431.")
    max_header_bytes: int = Field(32768, ge=1024, le=16_777_216, description="Largest request head (request line "
                                  "and headers) in bytes; bigger ones get 431 as soon as the limit is passed.")
    header_timeout: float = Field(10.0, gt=0.0, le=300.0, allow_inf_nan=False, description="Seconds a client may "
                                  "take to send a request's head once it connects or its last response ends; "
                                  "slower ones get 408 and are closed.")
    body_timeout: float = Field(30.0, gt=0.0, le=3600.0, allow_inf_nan=False, description="Seconds a client may "
                                "take to send a request's body once its head is in; slower ones get 408 and are "
                                "closed.")
    max_connections: int = Field(2048, ge=16, le=1_000_000, description="Most connections a worker keeps open; at "
                                 "the cap a new one closes the oldest that is not being served (408), or gets 503 "
                                 "if all are.")

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        levels = ("critical", "error", "warning", "info", "debug", "trace")
        if value.lower() not in levels:
            raise ValueError(f"log_level must be one of {', '.join(levels)}")
        return value.lower()

    @field_validator("date_days")
    @classmethod
    def _known_date_days(cls, value: str) -> str:
        if value.lower() not in DATE_DAYS:
            raise ValueError(f"date_days must be one of {', '.join(DATE_DAYS)}")
        return value.lower()

    @field_validator("api_key")
    @classmethod
    def _usable_key(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None or not value.get_secret_value():
            return None  # EGQA_API_KEY= (empty) means no key, as if unset
        if len(value.get_secret_value()) < MIN_KEY_CHARS:
            raise ValueError(f"api_key must be at least {MIN_KEY_CHARS} characters (e.g. `openssl rand -hex 32`)")
        return value

    @model_validator(mode="after")
    def _key_from_file_and_bind(self) -> Settings:
        if self.api_key_file is not None:
            if self.api_key is not None:
                raise ValueError("EGQA_API_KEY and EGQA_API_KEY_FILE are both set: set one of them")
            key = read_secret(self.api_key_file, "EGQA_API_KEY_FILE")
            if len(key) < MIN_KEY_CHARS:
                raise ValueError(f"EGQA_API_KEY_FILE: the key must be at least {MIN_KEY_CHARS} characters "
                                 "(e.g. `openssl rand -hex 32`)")
            self.api_key = SecretStr(key)
        if self.api_key is None and not self.allow_open_bind and not is_loopback(self.host):
            raise ValueError(f"EGQA_HOST={self.host} serves beyond this machine without an API key: set EGQA_API_KEY "
                             "or EGQA_API_KEY_FILE, or EGQA_ALLOW_OPEN_BIND=true to serve without one")
        return self

    def store_password(self) -> str | None:
        """The Elasticsearch password read from EGQA_STORE_PASSWORD_FILE, if that is set."""
        if self.store_password_file is None:
            return None
        return read_secret(self.store_password_file, "EGQA_STORE_PASSWORD_FILE")


MIN_KEY_CHARS = 16


def read_secret(path: Path, variable: str) -> str:
    """Return a secret file's text without its trailing newline, or raise ValueError naming the variable only
    (neither the path nor any of the content goes into the message)."""
    try:
        text = path.read_text(encoding="utf-8").rstrip("\r\n")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        raise ValueError(f"{variable}: the file cannot be read ({reason})") from None
    if not text.strip():
        raise ValueError(f"{variable}: the file is empty")
    return text


def store_password_option(path: Path | None) -> str | None:
    """For CLI commands: the store password read from `path` (--store-password-file), or InputError."""
    if path is None:
        return None
    try:
        return read_secret(path, "EGQA_STORE_PASSWORD_FILE")
    except ValueError as exc:
        raise InputError(str(exc)) from None


def is_loopback(host: str) -> bool:
    """True when `host` is a loopback address or `localhost` (only this machine can connect)."""
    import ipaddress

    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to any address


def load_settings(**overrides: object) -> Settings:
    """Settings from the environment and `overrides`; an invalid value raises InputError in one readable line
    per problem, naming the variable and never echoing the value (a too-short API key stays unprinted)."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = "; ".join(
            (f"EGQA_{'_'.join(str(p) for p in e['loc']).upper()}: " if e["loc"] else "")
            + e["msg"].removeprefix("Value error, ") for e in exc.errors(include_input=False, include_url=False))
        raise InputError(f"invalid settings: {problems}") from None
