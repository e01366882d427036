# labkit's front door. From a fresh clone:
#   make lab CH=06 IMPL=ref    grade a lab (IMPL=mine: your starter.py; ref: the reference; or a file's path)
#   make test                  the kit's own tests
# Both create the virtual environment .venv on first use.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
READY := $(VENV)/.labkit-installed

LAB ?= $(if $(CH),ch$(CH),)
IMPL ?= mine
# IMPL is mine, ref, or the path of a submission file.
IMPL_ARGS = $(if $(filter mine ref,$(IMPL)),--impl $(IMPL),--submission $(IMPL))
REPORT = reports/$(LAB)-$(if $(filter mine ref,$(IMPL)),$(IMPL),$(basename $(notdir $(IMPL)))).json

.DEFAULT_GOAL := help
.PHONY: help setup lab test lint format starters

help:
	@echo "make lab CH=06 [IMPL=mine|ref|path]   grade a lab (LAB=lesson1_3 for labs without a chapter number)"
	@echo "make test                             run the kit's own tests"
	@echo "make lint | format | starters         ruff checks, ruff formatting, regenerate starters from references"

$(READY): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "labkit needs Python 3.10 or newer")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $@

setup: $(READY)

lab: $(READY)
	@test -n "$(LAB)" || { echo "make lab: say which lab, e.g. make lab CH=06 or make lab LAB=lesson1_3" >&2; exit 2; }
	@$(BIN)/grader run --lab $(LAB) $(IMPL_ARGS) --json $(REPORT)

test: $(READY)
	$(BIN)/python -m pytest -n auto tests

lint: $(READY)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(READY)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

starters: $(READY)
	$(BIN)/grader starter
