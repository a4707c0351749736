# Two commands: `make demo` and `make test` (`make test-fast`: the linters and the unit tier only;
# `make coverage`: the suite with coverage of the product).
# All create .venv and install on first use (every package from requirements.lock, hash-checked). `make lock` writes requirements.lock again.
PYTHON ?= python3

.PHONY: demo test test-fast coverage install lock

demo:
	$(PYTHON) dev.py demo

test:
	$(PYTHON) dev.py test

test-fast:
	$(PYTHON) dev.py test-fast

coverage:
	$(PYTHON) dev.py coverage

install:
	$(PYTHON) dev.py install

lock:
	$(PYTHON) dev.py lock
