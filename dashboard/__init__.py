"""The dashboard over the published snapshot: a marimo app and its static HTML report.

* :mod:`dashboard.notebook`: the marimo notebook (a plain Python file; DuckDB SQL cells on the
  snapshot, altair charts). ``wfm-sync dashboard`` serves it with ``marimo run``.
* :mod:`dashboard.queries`: every SQL query it runs (marts only); :mod:`dashboard.sections`: each
  section's heading, summary and charts.
* :mod:`dashboard.filtering`: the filters and the SQL conditions they make (a group's members
  on each day, the shifts carrying a layer value).
* :mod:`dashboard.views`: what the sections share: KPI and chart helpers (the filters
  re-exported).
* :mod:`dashboard.report`: the same notebook run once and written as one self-contained HTML file
  (``wfm-sync report``, and the nightly after each publish).

Everything here reads the snapshot (:mod:`pipelines.publish`), opened read-only, and the run log
file; never the warehouse.
"""
