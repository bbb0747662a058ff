"""Service settings, read from `EGQA_*` environment variables (or a `.env` file) and validated at start-up."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Everything the service needs to start; each field is the env var `EGQA_<NAME>`."""

    model_config = SettingsConfigDict(env_prefix="EGQA_", env_file=".env", extra="ignore")

    graphs_dir: Path = Field(Path("out/demo/graphs"), description="Folder of entailment-graph artefacts.")
    extra_graphs: dict[str, Path] = Field({}, description="More graph sets, each an extra scorer "
                                          "named by its key, as JSON, e.g. {\"berant\": \"out/berant\"}.")
    lm: bool = Field(True, description="Load the sentence-embedding model (the `lm` extra) for the lm_cosine and "
                                       "+smooth scorers; without the extra these scorers are not offered.")
    smooth_k: int = Field(4, ge=1, le=100, description="Premise smoothing: nearest graph nodes an unseen premise is scored through.")
    smooth_min_cosine: float = Field(0.5, ge=-1.0, le=1.0, description="Premise smoothing: least cosine of a neighbour's predicate words.")
    store_url: str = Field("sqlite:///out/demo/evidence.db", description="Evidence store URL (sqlite:///path or http(s)://host:port).")
    default_scorer: str | None = Field(None, description="Scorer when a request names none (default: the graphs' default, binc).")
    threshold: float = Field(0.05, ge=0.0, le=1.0, description="Score at or above which the answer is true.")
    window_days: int = Field(3, ge=1, description="Context window length the store was indexed with.")
    max_batch: int = Field(1000, ge=1, description="Most hypotheses in one batch request.")
    max_text_chars: int = Field(2000, ge=10, description="Longest free-text proposition accepted.")
    max_evidence: int = Field(500, ge=1, description="Most evidence triples scored per hypothesis.")
    host: str = Field("127.0.0.1", description="Address `egqa serve` binds.")
    port: int = Field(8000, ge=1, le=65535, description="Port `egqa serve` binds.")
    workers: int = Field(1, ge=1, description="Uvicorn worker processes.")
    log_level: str = Field("info", description="Uvicorn log level.")

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        levels = ("critical", "error", "warning", "info", "debug", "trace")
        if value.lower() not in levels:
            raise ValueError(f"log_level must be one of {', '.join(levels)}")
        return value.lower()
