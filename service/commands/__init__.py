"""CLI command groups; each module defines `register(app)` and thin commands over library functions."""
