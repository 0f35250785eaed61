# Two commands do all the set-up on a fresh machine:
#   make lab    .venv + install + emulator + JupyterLab at notebooks/00_start_here.ipynb
#   make test   the same set-up (and Debian's chromium), then the whole test suite
# tools/check-system runs first: it installs what the machine lacks (python3-venv, chromium)
# when this user may, and otherwise stops with the one command to run.
PYTHON ?= python3
# inside the conda environment of environment.yml, use it instead of a .venv
ifeq ($(CONDA_DEFAULT_ENV),bigtable-workbench)
VENV ?= $(CONDA_PREFIX)
else
VENV ?= .venv
endif
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-bigtable-workbench
CHECK := PYTHON=$(PYTHON) sh tools/check-system --venv $(VENV)

.PHONY: install lab test test-fast mutants bench report emulator-status clean
# the system check must finish before the install starts
.NOTPARALLEL:

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade "pip>=24"
	# compat: a .pth naming the checkout, which mypy and IDEs follow from any folder (the default
	# editable finder is an import hook they cannot see: every public name would be Any)
	$(PY) -m pip install --quiet -e ".[lab,test]" --config-settings editable_mode=compat
	@touch $(STAMP)

install:
	@$(CHECK)
	@$(MAKE) --no-print-directory $(STAMP)

lab: install
	$(PY) -m workbench lab

# the whole suite runs one pytest-xdist worker per core (at most 4: each has its own emulator,
# kernels and Chromium), a test file to a worker so a file's module fixtures are built once;
# the slowest 15 tests are listed at the end.
test:
	@$(CHECK) --browser
	@$(MAKE) --no-print-directory $(STAMP)
	@$(PY) -m workbench emulator find
	$(PY) -m pytest -n auto --maxprocesses 4 --dist loadfile --durations=15 $(PYTEST_ARGS)

# the development loop: everything but the browser, notebook and slow tests, one worker per core
test-fast: install
	@$(PY) -m workbench emulator find
	$(PY) -m pytest -m "not slow and not browser and not notebook" -n auto $(PYTEST_ARGS)

# mutation testing ([tool.mutmut] in pyproject.toml says which modules and which tests): every
# mutant, or those named by MUTANTS (mutmut's names, globs allowed), then the score per module;
# it fails under MUTANTS_MIN %. Results stay in mutants/ (git-ignored): a run without MUTANTS
# only runs the mutants not yet judged (mutmut show NAME: the diff; rm -rf mutants: start over).
#   make mutants MUTANTS='workbench.analysis.pricing.*'
# SAMPLE=N: a uniform random sample of N mutants (from those MUTANTS matches, else all), its
# seed printed (SEED=s draws the same again); only those not yet judged run, and the score is
# an estimate per group (schema/, reader.py, the others) with its 95 % interval. An empty list
# of names must not reach mutmut: `mutmut run` without names runs every mutant.
# A mutant that hangs a test (a read watchdog removed: the read waits forever) is ended by
# pytest-timeout after MUTANTS_TEST_TIMEOUT s a test (the slowest listed test takes 12 s alone):
# the test fails, its fixtures stop their emulator, and the mutant counts as killed, as mutmut
# counts its own time limit (15 x the tests' time, minutes for the reader's emulator tests).
#   make mutants SAMPLE=350 SEED=4747 MUTANTS='workbench.schema.*'
MUTANTS ?=
MUTANTS_TEST_TIMEOUT ?= 120
MUTANTS_MIN ?= 85
MUTANTS_CHILDREN ?= 2
SAMPLE ?=
SEED ?=
mutants: install
	@$(PY) -m workbench emulator find
ifeq ($(SAMPLE),)
	PYTEST_TIMEOUT=$(MUTANTS_TEST_TIMEOUT) $(VENV)/bin/mutmut run --max-children $(MUTANTS_CHILDREN) $(MUTANTS)
	$(PY) tools/mutation_score.py --survivors --fail-under $(MUTANTS_MIN)
else
	$(PY) tools/mutation_score.py --draw $(SAMPLE) $(if $(SEED),--seed $(SEED)) \
		$(foreach m,$(MUTANTS),--pattern '$(m)')
	names="$$(cat mutants/sample-todo.txt)"; test -z "$$names" || \
		PYTEST_TIMEOUT=$(MUTANTS_TEST_TIMEOUT) $(VENV)/bin/mutmut run --max-children $(MUTANTS_CHILDREN) $$names
	$(PY) tools/mutation_score.py --sample --survivors --fail-under $(MUTANTS_MIN)
endif

bench: install
	$(PY) -m workbench bench

report: install
	$(PY) -m workbench report --out reports

emulator-status: install
	$(PY) -m workbench emulator status

clean:
	rm -rf .venv reports test-artifacts .pytest_cache
