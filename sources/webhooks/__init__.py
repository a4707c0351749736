"""The ``webhooks`` dlt source (:mod:`~sources.webhooks.source`: events and refused bodies of the
inbox into dataset ``webhooks``) and the ``[webhooks]`` configuration as dlt reads it
(:mod:`~sources.webhooks.config`). Importing the package imports neither, so reading the
configuration (``wfm-sync webhooks serve``) does not load the source's Arrow and DuckDB.
"""
