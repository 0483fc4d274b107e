# Bootstraps everything on a fresh machine with Python 3.11+, Node 20+ and git. `make test`
# also needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium): the HTML
# report's tests open it there (tests/report/browser.py says so when it is missing).
# uv comes from PyPI (installed with the machine's Python if missing); it never downloads
# an interpreter. Engines come from the npm registry at the pinned versions.

PYTHON ?= python3
export UV_PYTHON_DOWNLOADS := never
export UV_PYTHON := $(shell $(PYTHON) -c 'import sys; print(sys.executable)')
# uv on PATH if the machine has one, else the one bootstrapped into .tools/. Exported (as an
# absolute path) because the wheel tests build with it: they must not depend on PATH.
TOOLS_UV := $(CURDIR)/.tools/bin/uv
UV := $(shell command -v uv 2>/dev/null || echo $(TOOLS_UV))
export UV
RUN := $(UV) run --frozen --no-sync
# The locked third-party wheels, for the tests that install holon's built wheels the way a user
# does: they resolve against this directory alone (no index, an empty uv cache of their own), so
# they pass on a fresh machine exactly as they do here. Exported for the tests (testing/plugin.py).
WHEELHOUSE := $(CURDIR)/.tools/wheelhouse
export HOLON_WHEELHOUSE := $(WHEELHOUSE)

.PHONY: bootstrap sync engines wheelhouse oracles lint typecheck schemas pytest conformance test check demo bench dist image image-test clean

bootstrap: $(UV) sync engines wheelhouse oracles

$(TOOLS_UV):
	$(PYTHON) -m venv .tools
	.tools/bin/pip install --quiet --disable-pip-version-check "uv>=0.5"

sync: $(UV)
	$(UV) sync --frozen --all-packages --group dev

engines: sync
	$(RUN) holon engines install all

# Every wheel uv.lock pins (all packages, no dev group) and the build backend a source install
# needs (tests/action/build-requirements.txt), downloaded once per lock with pip, which checks
# each against its sha256. Remade when either file changes.
wheelhouse: $(WHEELHOUSE)/requirements.txt

$(WHEELHOUSE)/requirements.txt: uv.lock tests/action/build-requirements.txt | $(UV)
	rm -rf $(WHEELHOUSE) && mkdir -p $(WHEELHOUSE)
	$(UV) export --frozen --all-packages --no-dev --no-emit-workspace --no-header -q \
		-o $(WHEELHOUSE)/requirements.lock
	$(UV) tool run --from 'pip>=24' pip download -q --no-deps --require-hashes \
		--only-binary :all: -r $(WHEELHOUSE)/requirements.lock -r tests/action/build-requirements.txt \
		-d $(WHEELHOUSE)
	mv $(WHEELHOUSE)/requirements.lock $@

# Published validators the tests use as oracles (tests/oracles/requirements.txt): Harbor's ATIF
# validator and SchemaStore's GitHub Action schemas. Their wheels are downloaded without
# dependencies, hash-checked, and unpacked for the tests to import with the project's
# interpreter (harbor's wheel wants Python >= 3.12 and ~120 packages; its validator needs only
# pydantic). Exported for the tests (tests/oracles/__init__.py).
ORACLES_DIR := $(CURDIR)/.tools/oracles
export HOLON_ORACLES_DIR := $(ORACLES_DIR)

oracles: $(ORACLES_DIR)/.unpacked

$(ORACLES_DIR)/.unpacked: tests/oracles/requirements.txt | $(UV)
	rm -rf $(ORACLES_DIR) && mkdir -p $(ORACLES_DIR)
	$(UV) tool run --from 'pip>=24' pip download -q --no-deps --require-hashes \
		--only-binary :all: --python-version 3.12 -r $< -d $(ORACLES_DIR)/wheels
	for wheel in $(ORACLES_DIR)/wheels/*.whl; do \
		$(UV_PYTHON) -m zipfile -e "$$wheel" $(ORACLES_DIR)/site || exit 1; done
	touch $@

lint: sync
	$(RUN) ruff check .
	$(RUN) ruff format --check .
	$(RUN) python scripts/layout_check.py

typecheck: sync
	scripts/typecheck.sh

schemas: sync
	$(RUN) holon schema spec > schemas/spec.schema.json
	$(RUN) holon schema manifest > schemas/manifest.schema.json
	$(RUN) holon schema cassette > schemas/cassette.schema.json

# One worker per core (at most 4): most of a test's time is an engine or holon-agent process,
# so two workers keep both cores of a small machine busy. A file's tests stay on one worker
# (module-scoped servers and wheels are built once). out/junit.xml keeps every test's time:
# scripts/test_times.py sums it by area and file.
pytest: bootstrap
	$(RUN) pytest -n auto --maxprocesses 4 --dist loadfile --durations=25 --junitxml=out/junit.xml

# RFC-0002 conformance of every installed adapter (replay, claude, codex, gemini, opencode, the
# ACP profiles), with the per-adapter matrix on the terminal and as JSON. The generic acp engine
# runs whatever HOLON_ACP_COMMAND names: here the pinned Gemini CLI's ACP server (docs/acp.md).
# Two workers, an adapter's checks on one of them (--dist loadgroup: the suite's plugin makes
# each adapter one group, its runs made once), the adapters dealt out as workers free up; the
# controller prints the matrix and writes the report, the same as a serial run.
ACP_SETTINGS := HOLON_ACP_COMMAND HOLON_ACP_LOGIN HOLON_ACP_PASS_ENV HOLON_ACP_MODEL_API HOLON_ACP_BASE_URL_ENV
conformance: bootstrap
	gemini=$$($(RUN) python -c 'import os; from holon_core.hooks.manager import load_plugins; print(load_plugins().get_engine("gemini").locate_binary(os.environ))') && \
	HOLON_ACP_COMMAND="$$gemini --acp -m gemini-conformance-model" HOLON_ACP_LOGIN=gemini-api-key \
	HOLON_ACP_PASS_ENV=GEMINI_API_KEY HOLON_ACP_MODEL_API=google-generate-content \
	HOLON_ACP_BASE_URL_ENV=GOOGLE_GEMINI_BASE_URL HOLON_CONFORMANCE_PASS_ENV="$(ACP_SETTINGS)" \
	$(RUN) pytest -n 2 --dist loadgroup --holon-adapter all --holon-report out/conformance-report.json

# The whole suite: lint, types, every test (real engines included), then conformance.
test: bootstrap lint typecheck pytest conformance

# The developer's quick loop (no engine starts): lint, types, and the tests of pure code:
# parsers and their fuzzing, the spec's rules, schemas, the layer map and public API, the
# room's network policy and proxy, the requirement registry. `make test` stays the whole suite.
CHECK_TESTS := tests/fuzz tests/test_layers.py tests/test_public_api.py tests/test_schemas.py \
	tests/test_spec_loader.py tests/cli/test_manifest_doc.py tests/sandbox/test_policy.py \
	adapters/*/tests/test_*_parser.py adapters/*/tests/test_*_fuzz.py \
	conformance/tests/test_suite_registry.py
check: sync lint typecheck
	$(RUN) pytest -n auto --maxprocesses 4 -q $(CHECK_TESTS)

demo: bootstrap
	$(RUN) python examples/demo.py

bench: bootstrap
	$(RUN) python -m bench

# Every distribution's wheel and sdist into dist/ (install them: README, Install).
dist: $(UV)
	rm -rf dist
	$(UV) build --all-packages --out-dir dist

# The agent image (container/Containerfile; docs/container.md). Needs root podman: ci-deps.sh
# installs podman, runc and mmdebstrap with apt when missing. IMAGE_CA_CERTS: a directory of
# extra CA certificates (*.crt) for a TLS-inspecting proxy, copied into the image; none by default.
IMAGE_CA_CERTS ?=
image: dist
	container/ci-deps.sh
	container/build.sh $(if $(IMAGE_CA_CERTS),--ca-certs $(IMAGE_CA_CERTS))

# In the image: --probe, a replay run, podman stop mid-run, holon run --container against
# process mode, and the conformance suite for claude.
image-test: bootstrap
	container/test.sh

clean:
	rm -rf .venv .tools out dist
