# GPU Ledger: the commands a developer needs. `make demo` and `make test` are the two that matter.
#
# Everything installs itself on first use: a virtualenv under .venv, pinned Python packages,
# `npm ci` and the front-end build. Re-running a target only redoes what changed.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
VAR := var
RUN := $(VAR)/run
LOG := $(VAR)/log
PORT ?= 8000
# Every command of the demo sees PORT: e-mailed links go to http://localhost:$(PORT) unless
# PUBLIC_URL is set (config/settings.py).
export PORT
SIMULATOR_PORT ?= 8900
# The demo's mail catcher (workers/mail_catcher.py): every e-mail the demo sends lands in var/mail.
MAIL_PORT ?= 8825
DEMO_ENV := $(VAR)/demo.env
# The demo runs like production (DEBUG off) but over plain HTTP on localhost. Outbound requests
# a tenant can aim refuse loopback addresses (apps/core/outbound.py): the demo allows its own
# simulator, and only it.
DEMO := set -a && source $(DEMO_ENV) && set +a && export OUTBOUND_ALLOWED_HOSTS=127.0.0.1:$(SIMULATOR_PORT) &&
# The demo's services send e-mail to the mail catcher, unless EMAIL_URL says otherwise.
DEMO_MAIL := EMAIL_URL=$${EMAIL_URL:-smtp://127.0.0.1:$(MAIL_PORT)}
# Starts, waits for and stops the demo's long-running processes (see the script's header).
SERVICES := VAR=$(VAR) PORT=$(PORT) SIMULATOR_PORT=$(SIMULATOR_PORT) MAIL_PORT=$(MAIL_PORT) VENV_BIN=$(abspath $(VENV))/bin \
  workers/demo-services.sh

.PHONY: help install frontend migrate demo stop dev test test-python test-stack test-all test-frontend lint bench bench-metrics bench-analysis bench-sync bench-backfill-faults bench-recommendations bench-digests clean

help:
	@echo "make demo    - install everything, start GPU Ledger with demo data on http://localhost:$(PORT)"
	@echo "make stop    - stop the demo's processes"
	@echo "make test    - run the test suite (Python, front-end, browser), under 20 minutes"
	@echo "make test-stack - the slow whole-stack tests (simulated fleets, real processes)"
	@echo "make test-all - both"
	@echo "make lint    - ruff, format check, mypy, import contracts, TypeScript, API types current"
	@echo "make types   - regenerate the front-end API types from the OpenAPI schema"
	@echo "make audit   - known high-severity advisories in the pinned Python and npm packages"
	@echo "make dev     - Django runserver + Vite dev server with hot reload"
	@echo "make bench   - run the benchmarks and append to bench/RESULTS.md"

# --- installation -------------------------------------------------------------------------
$(PY):
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "GPU Ledger needs Python 3.11+"'
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: requirements.txt requirements-dev.txt | $(PY)
	$(PIP) install --quiet --disable-pip-version-check -r requirements-dev.txt
	@touch $@

frontend/node_modules/.package-lock.json: frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund
	@touch $@

frontend/dist/index.html: frontend/node_modules/.package-lock.json $(shell find frontend/src frontend/index.html frontend/vite.config.ts frontend/tsconfig*.json -type f 2>/dev/null)
	cd frontend && npm run build

install: $(VENV)/.installed frontend/node_modules/.package-lock.json

frontend: frontend/dist/index.html

$(DEMO_ENV): | $(VENV)/.installed
	@mkdir -p $(VAR)
	@$(PY) -c 'import secrets; from cryptography.fernet import Fernet; \
	print("DEBUG=0\nHTTPS=0\nSECRET_KEY=" + secrets.token_urlsafe(50) + "\nFIELD_ENCRYPTION_KEY=" + Fernet.generate_key().decode())' > $@
	@echo "wrote $@ (secrets of the local demo)"

migrate: $(VENV)/.installed $(DEMO_ENV)
	$(DEMO) $(PY) manage.py migrate --noinput

# --- the demo -----------------------------------------------------------------------------
demo: install frontend migrate stop
	@mkdir -p $(RUN) $(LOG)
	$(DEMO) $(SERVICES) start simulator mail
	$(DEMO) $(PY) manage.py setup_demo --simulator 127.0.0.1:$(SIMULATOR_PORT) | tee $(RUN)/setup_demo.out
	@# 30 days of history through the real sync code (SDK -> simulator), before the browser opens.
	$(DEMO) $(PY) manage.py backfill --days 30 --account $$(sed -n 's/^cloud-account-id=//p' $(RUN)/setup_demo.out)
	$(DEMO) $(PY) manage.py analyse --organization demo
	$(DEMO) $(PY) manage.py recommend --organization demo
	$(DEMO) $(PY) manage.py collectstatic --noinput --verbosity 0
	@# The dashboard names the folder of caught mail, unless EMAIL_URL sends it elsewhere.
	$(DEMO) CAUGHT_MAIL_DIR=$$([ -n "$$EMAIL_URL" ] || echo $(abspath $(VAR))/mail) $(DEMO_MAIL) $(SERVICES) start web worker beat
	@echo
	@echo "  GPU Ledger is running:  http://localhost:$(PORT)"
	@echo "  Sign in as:             demo@example.com / demo"
	@echo "  E-mail it sends:        $(VAR)/mail/*.eml (caught on 127.0.0.1:$(MAIL_PORT); log: $(LOG)/mail.log)"
	@echo "  Logs:                   $(LOG)/   Stop with: make stop"
	@echo

# Stops every process of the demo (each service's whole process group) and fails if a port of
# the demo is still taken afterwards, naming what holds it.
stop:
	@$(SERVICES) stop

dev: install migrate
	@echo "Django on :$(PORT), Vite on :5173 (open http://localhost:5173)"
	$(DEMO) DEBUG=1 $(PY) manage.py runserver $(PORT) & (cd frontend && npm run dev); kill %1

# --- quality ------------------------------------------------------------------------------
# Runs the front-end unit tests, then the Python suite (in parallel). Browser tests are part
# of the Python suite (tests/e2e) and need the built front-end and Chromium. The slow
# whole-stack tests (marked `stack`: simulated fleets synced over the SDK, real worker
# processes, rate limits) have their own target, so that `make test` stays under 20 minutes
# on 2 cores; CI runs both (.ci/run), and `make test-all` does too.
test: install frontend test-frontend test-python

test-python: install frontend
	$(VENV)/bin/pytest -n $${PYTEST_WORKERS:-auto} --dist loadgroup -m "not stack"

test-stack: install frontend
	$(VENV)/bin/pytest -n $${PYTEST_WORKERS:-auto} --dist loadgroup -m stack

test-all: test test-stack

test-frontend: install
	cd frontend && npm test

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	cd frontend && npm run lint
	PYTHON=$(PY) frontend/scripts/check-api-types.sh

# Known advisories against the pinned dependencies: pip-audit over requirements.txt (OSV and
# PyPI) and npm audit --omit=dev in frontend/. Fails on a high or critical one; where the
# advisory data cannot be reached it says so and does not fail (.ci/dependency_audit.py).
.PHONY: audit
audit: install
	$(PY) .ci/dependency_audit.py

# Regenerates the front-end's API types from the backend's OpenAPI schema (drf-spectacular, then
# openapi-typescript) into frontend/src/api/schema.gen.{yaml,ts}. Run it after changing a serializer or
# a view's schema, and commit the result: `make lint` fails while they are out of date.
.PHONY: types
types: install
	PYTHON=$(PY) frontend/scripts/generate-api-types.sh

# --- benchmarks (not part of the test run) --------------------------------------------------
bench: bench-metrics bench-analysis bench-sync bench-backfill-faults bench-recommendations bench-digests bench-dashboard

bench-metrics: install
	DATABASE_URL=$${BENCH_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/gpu_ledger_bench} $(PY) -m bench.metrics_store

bench-analysis: install
	$(PY) -m bench.analysis_engine
	DATABASE_URL=$${BENCH_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/gpu_ledger_bench_analysis} \
	$(PY) -m bench.analysis_end_to_end

# Uses Redis for the shared rate limiter when it answers, like production.
bench-recommendations: install
	DATABASE_URL=$${BENCH_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/gpu_ledger_bench_recommendations} \
	$(PY) -m bench.recommendations_rules

bench-sync: install
	DATABASE_URL=$${BENCH_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/gpu_ledger_bench_sync} \
	REDIS_URL=$${REDIS_URL:-redis://127.0.0.1:6379/0} $(PY) -m bench.sync_backfill

# manage.py backfill with about half of all requests failing vs none: same fleet, one run each.
bench-backfill-faults: install
	DATABASE_URL=$${BENCH_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/gpu_ledger_bench_faults} \
	REDIS_URL=$${REDIS_URL:-redis://127.0.0.1:6379/0} $(PY) -m bench.backfill_faults

# 1,000 digests rendered and sent by 2 worker processes to a loopback SMTP sink.
bench-digests: install
	DATABASE_URL=$${BENCH_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/gpu_ledger_bench_digests} \
	REDIS_URL=$${REDIS_URL:-redis://127.0.0.1:6379/0} $(PY) -m bench.bench_digests

clean: stop
	rm -rf $(VAR)/run $(VAR)/log $(VAR)/test frontend/dist

# FOCUS export of 1 month vs 12 months: peak memory of the streaming process (issue #12).
.PHONY: bench-exports
bench-exports: install
	DATABASE_URL=$${BENCH_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/gpu_ledger_bench_exports} \
	$(PY) -m bench.bench_exports

# Headless Debian Chromium on the demo data served by gunicorn: Overview and instance page charts
# drawn, against the login page as the reference (BENCH_ARGS=--current before issue 13's pages).
.PHONY: bench-dashboard
bench-dashboard: install frontend
	DATABASE_URL=$${BENCH_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/gpu_ledger_bench_dashboard} \
	REDIS_URL=$${REDIS_URL:-redis://127.0.0.1:6379/0} $(PY) -m bench.dashboard $(BENCH_ARGS)

.PHONY: bench-api
bench-api: install
	DATABASE_URL=$${BENCH_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/gpu_ledger_bench_api} \
	REDIS_URL=$${REDIS_URL:-redis://127.0.0.1:6379/0} $(PY) -m bench.bench_api --reuse $(BENCH_ARGS)
