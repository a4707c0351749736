# Two commands: `make demo` and `make test`. Both create .venv and install on first use (every
# package from requirements.lock, hash-checked). `make lock` writes requirements.lock again.
PYTHON ?= python3

.PHONY: demo test install lock

demo:
	$(PYTHON) dev.py demo

test:
	$(PYTHON) dev.py test

install:
	$(PYTHON) dev.py install

lock:
	$(PYTHON) dev.py lock
