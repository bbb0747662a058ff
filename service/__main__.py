"""`python -m service` runs the egqa CLI."""

from service.cli import main

main()
