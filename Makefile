# The two commands a new user runs: `make demo` (the main job) and `make test` (the test suite).
PYTHON ?= python3
CORPUS ?= $(EGQA_CORPUS)
OUT ?= out/demo

.PHONY: install demo full test test-containers test-browser bench clean

install:
	bash scripts/install.sh

demo: install
	bash scripts/demo.sh $(CORPUS)

# The whole 2006-2013 Reuters corpus end to end (hours; resumable): see docs/results.md.
full: install
	bash scripts/full_run.sh

# The suite, then the container stage (tests marked `containers`: images built and docker-compose.yml
# run with podman, minutes) on its own, so a failure of the quick tests shows first.
test: install
	$(PYTHON) -m pytest -q -m "not containers"
	$(MAKE) --no-print-directory test-containers

test-containers:
	$(PYTHON) -m pytest -q -m containers

# The web page's tests alone (also part of `make test`): headless Chromium, installed by scripts/browser.sh setup.
test-browser:
	$(PYTHON) -m pytest -q -m browser

bench: install
	$(PYTHON) bench/extract.py

clean:
	rm -rf out .pytest_cache
