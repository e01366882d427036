# labkit's front door. From a fresh clone:
#   make lab CH=06 IMPL=ref    grade a lab (IMPL=mine: your starter.py; ref: the reference; or a file's path)
#   make test                  the kit's own tests
# Both create the virtual environment .venv on first use.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
READY := $(VENV)/.labkit-installed

# The kit starts many Python processes: each may cache the modules it compiled in __pycache__,
# even where the machine says not to, so the next one does not compile them again.
unexport PYTHONDONTWRITEBYTECODE

LAB ?= $(if $(CH),ch$(CH),)
IMPL ?= mine
# IMPL is mine, ref, or the path of a submission file. WALL=1 grades your own code behind the
# wall (a separate, limited worker), as the instructor's batch and CI do; a submission always is.
# TASK=value grades that task only (its report, marked partial, does not overwrite the whole lab's).
# A path may hold spaces ("My labs/lab 06.py"): it reaches the shell quoted, and make's own functions,
# which split words at spaces, see it with underscores (the report's name: reports/ch06-lab_06.json).
SPACE := $(subst ,, )
QUOTED = '$(subst ','\'',$(1))'
IMPL_ARGS = $(if $(filter mine ref,$(IMPL)),--impl $(IMPL),--submission $(call QUOTED,$(IMPL))) \
	$(if $(WALL),--isolation worker,) $(if $(TASK),--task $(TASK),)
REPORT = reports/$(LAB)-$(if $(filter mine ref,$(IMPL)),$(IMPL),$(basename $(notdir $(subst $(SPACE),_,$(IMPL)))))$(if $(TASK),-$(TASK),).json

.DEFAULT_GOAL := help
.PHONY: help venv sandbox test grade
# instructor only
# The student edition (grader/kit/edition.py) leaves out each part like this one, from its
# "instructor only" line to its "end of instructor only" line: what a student cannot run there.
.PHONY: setup dev dev-venv browser lint format starters graphs bench batch
# end of instructor only

help:
	@echo "make lab CH=06 [IMPL=mine|ref|path] [WALL=1] [TASK=value]   grade a lab, or one task of it (LAB=lesson1_3 for labs without a chapter number)"
	@echo "make test                             run the kit's own tests"
	@echo "make grade [CH=06|LAB=id]             grade behind the wall, as CI on your fork does: LAB, or the labs you changed (reports/ci)"
# instructor only
	@echo "make dev                              the developers' tools in .venv (ruff, pytest-xdist), the sandbox and Chromium"
	@echo "make lint | format | starters         ruff checks, ruff formatting, regenerate starters from references"
	@echo "make graphs                           regenerate the random graphs a correct engine is checked on (after changing Hypothesis or the graphs)"
	@echo "make gradients                        regenerate the expected gradients the labs' tests check against (after changing grader/testing or a lab's tests)"
	@echo "make bench [TORCH=]                   the benchmark suite (bench/results.json), PyTorch included unless TORCH="
	@echo "make batch LAB=ch06 SUBMISSIONS=DIR OUT=DIR [JOBS=N] [RESUME=1] [SHARD=I/N] [ONLY='id ...']   grade a class"
# end of instructor only

# .venv, made, repaired (its python gone, no pip) and filled with what grading needs by
# grader/kit/install.py, which says what it does and exits 0 or 2 (never 1: points lost). It runs
# whenever .venv's python does not run (test -x fails on a link left dangling by a removed Python)
# or the marker is older than pyproject.toml.
INSTALL = $(PYTHON) -m grader.kit.install --venv $(VENV) --python $(PYTHON)
installed = test -x $(BIN)/python && test $(1) -nt pyproject.toml

venv:
	@$(call installed,$(READY)) || $(INSTALL)

# instructor only
# The developers' extras too (ruff, pytest-xdist, pyyaml, zizmor, check-jsonschema): for the kit's tests, lint and format.
DEV_READY := $(VENV)/.labkit-dev-installed
dev-venv:
	@$(call installed,$(DEV_READY)) || $(INSTALL) --dev

dev setup: dev-venv sandbox browser

# The kit's tests open the class report in a real browser: Chromium, a system package, installed
# here as root with apt-get (without its recommended packages: a headless browser needs none of them).
# Where it cannot be, the report's browser test is skipped with the reason, except in CI, where it fails.
# After the sandbox, never beside it: apt-get holds dpkg's lock, and a second one would fail at once.
browser: | sandbox
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    { apt-get install -y -qq --no-install-recommends chromium || { apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium; }; } >/dev/null 2>&1 \
	      && echo "installed chromium, for the class report's browser test" || echo "could not install chromium: run apt-get install chromium as root"; \
	  else echo "chromium is not installed: the class report's browser test needs it (sudo apt-get install chromium)"; fi; }
# end of instructor only

# The wall's sandbox is bubblewrap, a system package: installed here as root with apt-get,
# otherwise named in one line (grading your own code in-process does not need it).
sandbox:
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    { apt-get install -y -qq bubblewrap || { apt-get update -qq && apt-get install -y -qq bubblewrap; }; } >/dev/null 2>&1 \
	      && echo "installed bubblewrap, the wall's sandbox" || echo "could not install bubblewrap: run apt-get install bubblewrap as root"; \
	  else echo "bubblewrap is not installed: grading behind the wall needs it (sudo apt-get install bubblewrap)"; fi; }

# `make lab` exits with the grader's own status: 0 all passed, 1 points lost, 2 usage or
# infrastructure error. A failing recipe would always make make exit 2, so the grading
# runs while this Makefile is read, and its status becomes make's: 2 through $(error),
# 1 through question mode (-q) on a target that is not up to date, 0 on one that is.
ifeq ($(MAKECMDGOALS),lab)
ifeq ($(LAB),)
$(error say which lab, e.g. make lab CH=06 or make lab LAB=lesson1_3)
endif
LAB_STATUS := $(shell { $(call installed,$(READY)) || $(INSTALL); } >&2 \
	&& $(BIN)/grader run --lab $(LAB) $(IMPL_ARGS) --json $(call QUOTED,$(REPORT)) >&2; echo $$?)
ifeq ($(filter 0 1,$(LAB_STATUS)),)
$(error grading did not run (status $(LAB_STATUS)); see the message above)
endif
MAKEFLAGS += -q
endif

ifeq ($(LAB_STATUS),0)
lab:
else
lab:
	@:
endif

# 4 workers on any machine. The suite is bound by its CPU (both cores busy from start to end, 2026-12-07);
# 6 workers were no faster, and 3 slower: some tests wait for time limits, and the others fill those waits.
# The kit's tests, and each lab's instructor folder (its figures' tests: labs/<id>/instructor/test_figures.py).
# What they need is installed side by side: pip's install into .venv beside apt-get's of the system
# packages (a fresh machine's set-up, 55 s one after the other; both take a core). The tests' grading
# processes are forked from one that has imported numpy and pytest (tests/forked_grading.py), and the
# longest test scopes start first (tests/longest_first.py).
test:
	@$(MAKE) --no-print-directory -j2 dev-venv sandbox browser
	$(BIN)/python -m pytest -p tests.forked_grading -p tests.longest_first -p tests.pure_memo -n 4 --dist loadscope --durations=15 tests labs/*/instructor

# LAB on your starter.py behind the wall, or the labs whose starter.py you changed (every lab if none),
# as the fork's CI workflow runs it.
grade: venv sandbox
	$(BIN)/grader ci $(if $(LAB),--lab $(LAB),--changed)

# instructor only
lint: dev-venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: dev-venv
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

starters: venv
	$(BIN)/grader starter

graphs: venv
	$(BIN)/grader graphs

gradients: venv
	$(BIN)/grader gradients
	$(BIN)/grader manifest

# The benchmark suite (bench/): figures as ratios measured in one run. It installs PyTorch (TORCH), the
# engine suite's yardstick, never a dependency of the kit: the kit's VMs hold a CPU build of this
# version on disk; elsewhere pip may download a CUDA build of several GB. TORCH= leaves PyTorch out
# (its rows say not installed). The batch suite compares submissions: copydetect, a developers' extra.
TORCH ?= torch==2.13.0
bench: dev-venv sandbox
	@test -z "$(TORCH)" || $(BIN)/python -c "import torch" 2>/dev/null || $(BIN)/python -m pip install \
		--disable-pip-version-check --quiet "$(TORCH)" || echo "labkit: $(TORCH) could not be installed: the bench's PyTorch rows will say so"
	$(BIN)/python -m bench

# A whole class behind the wall (see README, "A whole class").
batch: dev-venv sandbox  # the developers' extras hold the instructor's (copydetect)
	@test -n "$(LAB)" -a -n "$(SUBMISSIONS)" -a -n "$(OUT)" || { echo "usage: make batch LAB=ch06 SUBMISSIONS='dir or .zip ...' OUT=dir [JOBS=N] [RESUME=1] [SHARD=I/N] [ONLY='id ...']" >&2; exit 2; }
	$(BIN)/grader batch $(SUBMISSIONS) --lab $(LAB) --out $(OUT) $(if $(JOBS),--jobs $(JOBS),) $(if $(RESUME),--resume,) $(if $(SHARD),--shard $(SHARD),) $(foreach s,$(ONLY),--only $(s))
# end of instructor only
