"""``python -m flows.cli``: the ``wfm-sync`` command without its console script."""

from flows.cli import main

main()
