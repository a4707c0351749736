"""Reproducible measurements of wfm-sync against named references (not part of `make test`)."""
