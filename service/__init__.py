"""egqa service: FastAPI app, scoring engine, HTTP batch client and the `egqa` CLI."""
