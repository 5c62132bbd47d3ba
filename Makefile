# Heron's daily commands. `make` lists them; every target sets up .venv by itself.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
SCHEMA_DIR := vendor/acp-schema
SCHEMA_OVERLAY := $(SCHEMA_DIR)/overlay-1.34.json
INSTALLED := $(VENV)/.installed
NODE_DEPS := tests/node/node_modules/.installed
VSCODE := editor-extensions/vscode
VSCODE_DEPS := $(VSCODE)/node_modules/.installed

.DEFAULT_GOAL := help
.PHONY: help setup sandbox demo test lint typecheck format pytest vscode e2e-browser bench gen-schema vendor-schema tool-schemas clean

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  make %-12s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

$(INSTALLED): pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "need $(PYTHON) (Python >= 3.11) on PATH" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	@touch $@

# `npm install`, not `npm ci`: acpx's optional per-platform packages are absent from the lockfile,
# which `npm ci` refuses; `npm install` still installs exactly what the lockfile pins.
$(NODE_DEPS): tests/node/package.json tests/node/package-lock.json
	npm install --prefix tests/node --no-audit --no-fund --loglevel=error
	@touch $@

$(VSCODE_DEPS): $(VSCODE)/package.json $(VSCODE)/package-lock.json
	cd $(VSCODE) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# bubblewrap is a system package: on Linux the tests run real commands in the real sandbox;
# podman runs the container backend's tests.
sandbox: ## install bubblewrap (Linux's sandbox for commands) and podman if they are missing
	@if [ "$$(uname -s)" = Linux ] && ! command -v bwrap >/dev/null; then \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  if command -v apt-get >/dev/null; then \
	    echo "installing bubblewrap with apt-get"; \
	    $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null; \
	  elif command -v dnf >/dev/null; then $$SUDO dnf install -y bubblewrap; \
	  elif command -v pacman >/dev/null; then $$SUDO pacman -S --noconfirm bubblewrap; \
	  else echo "install bubblewrap (bwrap) with your package manager" >&2; exit 1; fi; \
	fi
	@if [ "$$(uname -s)" = Linux ] && ! command -v podman >/dev/null; then \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  if command -v apt-get >/dev/null; then \
	    echo "installing podman and runc with apt-get (the container backend's tests)"; \
	    $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc >/dev/null; \
	  elif command -v dnf >/dev/null; then $$SUDO dnf install -y podman; \
	  elif command -v pacman >/dev/null; then $$SUDO pacman -S --noconfirm podman; \
	  else echo "install podman with your package manager" >&2; exit 1; fi; \
	fi

setup: $(INSTALLED) $(NODE_DEPS) $(VSCODE_DEPS) sandbox ## create .venv and install Heron with its dev tools

demo: $(INSTALLED) ## run a scripted session through `heron acp` over real stdio
	$(BIN)/heron demo

lint: $(INSTALLED) ## ruff format check, ruff lint, pyright strict, import contracts
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/pyright
	$(BIN)/pyright tools/overlay_schema.py tools/gen_tool_schemas.py
	$(BIN)/lint-imports

format: $(INSTALLED) ## apply ruff format and safe fixes
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Most tests wait on real processes (heron acp, the sandbox, git), so more workers than cores
# pay off: 4 on a 2-core machine. PYTEST_WORKERS=0 runs them in this process, one by one.
PYTEST_WORKERS ?= 4
pytest: $(INSTALLED) $(NODE_DEPS) sandbox ## run the test suite only (in parallel: PYTEST_WORKERS)
	$(BIN)/pytest -n $(PYTEST_WORKERS)

vscode: $(INSTALLED) $(VSCODE_DEPS) sandbox ## the VS Code extension: typecheck, eslint, build, tests (real heron), .vsix
	cd $(VSCODE) && HERON_BIN=$(CURDIR)/$(BIN)/heron npm run check

test: lint pytest vscode ## every quality gate, then the tests (what CI runs)

e2e-browser: $(INSTALLED) ## the VS Code extension in a real VS Code (code-server) + headless Chromium; minutes
	bash editor-extensions/vscode-e2e/run.sh

bench: $(INSTALLED) sandbox ## measure start-up, latency and memory; writes docs/PERFORMANCE.md
	@# Bytecode as an installed wheel has it (PYTHONDONTWRITEBYTECODE may be set here).
	$(BIN)/python -m compileall -q -x demo_project acp_server agent_core
	$(BIN)/python -m bench --write docs/PERFORMANCE.md

# schema.base.json is the official file as copied; schema.json is it with the overlay's parts
# (the stable parts of a newer schema than could be had) that it lacks. Without NEW_SCHEMA the
# overlay is applied again to the base already here.
vendor-schema: $(INSTALLED) ## copy a new ACP schema in (NEW_SCHEMA=<folder>), apply the overlay; then gen-schema
	@if [ -n "$(NEW_SCHEMA)" ]; then \
	  cp $(NEW_SCHEMA)/schema.json $(SCHEMA_DIR)/schema.base.json && cp $(NEW_SCHEMA)/meta.json $(SCHEMA_DIR)/; \
	else echo "no NEW_SCHEMA=<folder>: applying $(SCHEMA_OVERLAY) to the base already vendored"; fi
	$(BIN)/python tools/overlay_schema.py --base $(SCHEMA_DIR)/schema.base.json --overlay $(SCHEMA_OVERLAY) --out $(SCHEMA_DIR)/schema.json
	@sha256sum $(SCHEMA_DIR)/schema.base.json $(SCHEMA_DIR)/schema.json $(SCHEMA_DIR)/meta.json

gen-schema: $(INSTALLED) ## regenerate acp_server/protocol/ from the vendored ACP JSON schema
	$(BIN)/python tools/gen_schema.py --schema $(SCHEMA_DIR)/schema.json --meta $(SCHEMA_DIR)/meta.json --out acp_server/protocol

tool-schemas: $(INSTALLED) ## remake agent_core/tools/argument_schemas.json after changing a tool's arguments
	$(BIN)/python tools/gen_tool_schemas.py

clean: ## remove the virtualenv, node modules and caches
	rm -rf $(VENV) tests/node/node_modules $(VSCODE)/node_modules .pytest_cache .ruff_cache
	rm -rf editor-extensions/vscode-e2e/node_modules editor-extensions/vscode-e2e/.cache
