# Two commands on a fresh machine: `make run` and `make test`. Everything else is optional.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# pytest-xdist workers: one per core and one more, because a worker waits (on its servers,
# on timeouts a test measures, on I/O) for about a quarter of a run and the extra worker
# uses that time (2 cores: 3 workers). In `make test` each test file runs on one worker
# (module fixtures start their servers once); each worker has its own cache key prefix and
# test database.
PYTEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
# Python writes its bytecode caches in the tests (even where the machine sets
# PYTHONDONTWRITEBYTECODE): without them every run, and every server a test starts, compiles
# the project again and pytest rewrites every test module's asserts (collection 24 s -> 10 s).
unexport PYTHONDONTWRITEBYTECODE
# Installs come from the lock files (every transitive pin, with hashes); `make lock`
# regenerates them from requirements/base.txt and dev.txt.
BASE_STAMP := $(VENV)/.base-$(shell cat requirements/base.lock | sha1sum | cut -c1-10)
DEV_STAMP  := $(VENV)/.dev-$(shell cat requirements/dev.lock | sha1sum | cut -c1-10)

.PHONY: run test quick quick-tests lint schema graphql-schema typecheck unit sandbox bench bench-indicators bench-backtest fleet fuzz explore lock clean

$(BIN)/python:
	@bin/check-python $(PYTHON)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(BASE_STAMP): $(BIN)/python requirements/base.lock
	$(BIN)/pip install -q --require-hashes -r requirements/base.lock
	touch $@

$(DEV_STAMP): $(BASE_STAMP) requirements/dev.lock
	$(BIN)/pip install -q --require-hashes -r requirements/dev.lock
	touch $@

## run: install, migrate, and start the service (gunicorn) on $PORT (default 8000)
run: $(BASE_STAMP)
	PYTHON=$(BIN)/python bin/serve

# The checks (ruff, import contracts, locks, mypy, the OpenAPI validation) run beside the
# tests, not before them: each takes one core for a few seconds to a minute, and the test
# workers leave CPU idle while tests wait on I/O. Their output follows the tests'; either
# failing fails the target.
define BESIDE_CHECKS
	@checks=$$(mktemp); trap 'rm -f "$$checks"' EXIT; \
	$(MAKE) --no-print-directory $(1) >"$$checks" 2>&1 & pid=$$!; \
	$(MAKE) --no-print-directory $(2); tests=$$?; \
	wait $$pid; status=$$?; echo "-- $(1):"; cat "$$checks"; \
	[ $$status -eq 0 ] || echo "make: the checks ($(1)) failed"; \
	[ $$tests -eq 0 ] && [ $$status -eq 0 ]
endef

## test: lint, OpenAPI validation, type checking and the whole test suite (in parallel)
test: $(DEV_STAMP)
	$(call BESIDE_CHECKS,lint schema typecheck,unit)

## quick: lint, type check and every test that starts no process (a test that starts one
## without the `process` or `integration` marker fails: --forbid-processes)
quick: $(DEV_STAMP)
	$(call BESIDE_CHECKS,lint typecheck,quick-tests)

quick-tests: $(DEV_STAMP)
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) -m "not integration and not process" \
		--forbid-processes $(PYTEST_ARGS)

## lint: ruff, the import layers (import-linter contracts in pyproject.toml), and the locks:
## each installs on every Python 3.11.x, Debian 12's 3.11.2 included (bin/check-locks, offline)
lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	PYTHONPATH=. $(BIN)/lint-imports --no-cache
	$(BIN)/python bin/check-locks requirements/base.lock requirements/dev.lock

schema: $(DEV_STAMP)
	$(BIN)/python manage.py spectacular --validate --fail-on-warn --file /dev/null

## graphql-schema: regenerate schema.graphql (the GraphQL SDL; CI checks it is current)
graphql-schema: $(BASE_STAMP)
	$(BIN)/python manage.py graphql_schema

## typecheck: mypy with django-stubs over marketdata/ and apps/core/ (pyproject.toml)
typecheck: $(DEV_STAMP)
	$(BIN)/mypy

# The fleet test (HAProxy, three instances, a Sentinel set, paced load) and the browser tests
# (Chromium, three instances) run after the rest, beside each other: beside the timed tests
# they take the CPU those measure (CI failed on that with either of them in the parallel
# run); with each other they share two cores, mostly waiting (the fleet's load is paced).
# The property tests draw their examples from one seed per commit (printed; replay a failure
# with `make test HYPOTHESIS_SEED=N`), with an example database that lives as long as the run.
ALONE_TESTS := tests/integration/test_fleet.py tests/integration/test_explorer_browser.py
HYPOTHESIS_SEED ?= $(shell printf '%d' 0x$$(git rev-parse --short=8 HEAD 2>/dev/null || echo 0))
UNIT_ARGS := --hypothesis-seed=$(HYPOTHESIS_SEED) --durations=15 --durations-min=2
unit: $(DEV_STAMP)
	@echo "hypothesis seed: $(HYPOTHESIS_SEED) (replay: make test HYPOTHESIS_SEED=$(HYPOTHESIS_SEED))"
	@db=$$(mktemp -d); trap 'rm -rf "$$db"' EXIT; \
	export HYPOTHESIS_PROFILE=ci HYPOTHESIS_DATABASE_DIR="$$db"; set -e; \
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder \
		-m "not alone" $(UNIT_ARGS) $(PYTEST_ARGS); \
	$(BIN)/python -m pytest -n 2 --dist loadfile -m alone $(ALONE_TESTS) $(UNIT_ARGS) \
		$(PYTEST_ARGS) || [ $$? -eq 5 ]

## explore: the property tests with fresh random examples (HYPOTHESIS_PROFILE=explore); make
## quick and make test run them repeatably (tests/conftest.py). Turn each failure it finds into
## an @example beside its test, then fix the code.
explore: $(DEV_STAMP)
	HYPOTHESIS_PROFILE=explore $(BIN)/python -m pytest -n $(PYTEST_WORKERS) -m "not integration" \
		$(PYTEST_ARGS) $$(grep -rl "from hypothesis" tests)

## sandbox: the Yahoo simulator as an HTTP server on :9000
sandbox: $(BASE_STAMP)
	$(BIN)/python manage.py sandbox_upstream --port 9000

## bench: see bench/README.md
bench: $(DEV_STAMP)
	$(BIN)/python bench/http_bench.py

## bench-indicators: indicator computation vs TA-Lib on 2,500 bars (bench/README.md)
bench-indicators: $(DEV_STAMP)
	$(BIN)/python bench/indicators.py

## bench-backtest: the backtest engine vs backtesting.py, and POST /v2/backtest (bench/README.md)
bench-backtest: $(DEV_STAMP)
	$(BIN)/python bench/backtest.py

## fleet: HAProxy + 3 instances + PostgreSQL + a Redis Sentinel set on loopback, 2 minutes
## of mixed load with an instance killed and Redis failed over (bench/fleet.py; needs
## Debian's haproxy and redis-server, and PostgreSQL at DATABASE_URL's server)
fleet: $(DEV_STAMP)
	$(BIN)/python bench/fleet.py $(FLEET_ARGS)

## fuzz: schemathesis (all checks, > 1,000 cases) against the service in sandbox mode
fuzz: $(DEV_STAMP)
	PYTHON=$(BIN)/python bin/fuzz $(FUZZ_ARGS)

## lock: re-resolve requirements/base.lock and dev.lock from base.txt and dev.txt (PyPI,
## hashes of every file of each release); dev.lock is constrained to base.lock's pins.
## pip-compile keeps only what the Python it runs on needs: a dependency behind a marker
## (redis's async-timeout below 3.11.3) is pinned in base.txt, and the locks are checked
## for every 3.11.x afterwards (bin/check-locks, also in `make lint`).
LOCK_FLAGS := --quiet --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url \
	--no-emit-find-links --annotation-style line --index-url https://pypi.org/simple
lock: $(DEV_STAMP)
	env -u PIP_FIND_LINKS PIP_CONFIG_FILE=/dev/null $(BIN)/pip-compile $(LOCK_FLAGS) \
		-o requirements/base.lock requirements/base.txt
	env -u PIP_FIND_LINKS PIP_CONFIG_FILE=/dev/null $(BIN)/pip-compile $(LOCK_FLAGS) \
		-c requirements/base.lock -o requirements/dev.lock requirements/dev.txt
	$(BIN)/pip install -q --require-hashes -r requirements/dev.lock
	$(BIN)/python bin/check-locks requirements/base.lock requirements/dev.lock

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache .mypy_cache
