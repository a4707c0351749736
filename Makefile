# Two commands: `make demo` and `make test` (`make test-fast`: the linters and the unit tier only).
# All create .venv and install on first use (every package from requirements.lock, hash-checked). `make lock` writes requirements.lock again.
PYTHON ?= python3

.PHONY: demo test test-fast install lock

demo:
	$(PYTHON) dev.py demo

test:
	$(PYTHON) dev.py test

test-fast:
	$(PYTHON) dev.py test-fast

install:
	$(PYTHON) dev.py install

lock:
	$(PYTHON) dev.py lock
