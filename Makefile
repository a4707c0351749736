# Two commands: `make demo` and `make test`. Both create .venv and install on first use.
PYTHON ?= python3

.PHONY: demo test install

demo:
	$(PYTHON) dev.py demo

test:
	$(PYTHON) dev.py test

install:
	$(PYTHON) dev.py install
