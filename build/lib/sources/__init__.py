"""dlt sources of wfm-sync: ``connecteam`` (the REST API) and ``webhooks`` (the event inbox)."""
