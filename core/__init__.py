"""What every part of wfm-sync shares, below the sources in the import layers.

* :mod:`core.settings`: every ``WFM_SYNC_*`` setting, typed, and the project's home.
* :mod:`core.clock`: the project's "now" (``WFM_SYNC_NOW`` pins it).
* :mod:`core.progress`: counts pages and nodes and logs them (the live display is
  ``flows/cli/live.py``).
* :mod:`core.durable`: write-then-rename with fsync, for every file a job replaces.
* :mod:`core.lazy`: a package's names imported on first use.
"""
