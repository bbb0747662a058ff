"""`python -m service` runs the egqa CLI."""

from service.cli import main

if __name__ == "__main__":  # not when a spawned worker process imports this module as __mp_main__
    main()
