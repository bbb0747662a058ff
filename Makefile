# The two commands a new user runs: `make demo` (the main job) and `make test` (the test suite).
PYTHON ?= python3
CORPUS ?= $(EGQA_CORPUS)
OUT ?= out/demo

.PHONY: install demo test bench clean

install:
	bash scripts/install.sh

demo: install
	bash scripts/demo.sh $(CORPUS)

test: install
	$(PYTHON) -m pytest -q

bench: install
	$(PYTHON) bench/extract.py

clean:
	rm -rf out .pytest_cache
