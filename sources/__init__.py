"""dlt sources of wfm-sync: ``connecteam`` (the REST API)."""
