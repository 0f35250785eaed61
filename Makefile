# Two commands do all the set-up on a fresh machine:
#   make lab    .venv + install + emulator + JupyterLab at notebooks/00_start_here.ipynb
#   make test   the same set-up, then the whole test suite
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install lab test bench report emulator-status clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade "pip>=24"
	$(PY) -m pip install --quiet -e ".[test]"
	@touch $(STAMP)

install: $(STAMP)

lab: install
	$(PY) -m workbench lab

test: install
	$(PY) -m pytest $(PYTEST_ARGS)

bench: install
	$(PY) -m workbench bench

report: install
	$(PY) -m workbench report --out reports

emulator-status: install
	$(PY) -m workbench emulator status

clean:
	rm -rf $(VENV) reports test-artifacts .pytest_cache
