"""A BI-like reader of the published snapshot, run as its own process by test_models.py.

    python tests/snapshot_reader.py SNAPSHOT OUT STOP {fresh|held}

``fresh``: every round opens a new read-only SQLAlchemy (duckdb-engine) connection, inspects the
schemas and runs every mart query; ``held``: one connection stays open for the whole run. Each
round appends one JSON line to OUT: the snapshot's ``published_at`` and each mart's row count, all
read through the same connection. Runs until the file STOP exists.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.pool import NullPool

MARTS = ["dim_users", "fct_shifts", "fct_time_activities", "fct_daily_hours",
         "fct_timesheet_periods", "fct_availability"]  # fmt: skip


def observe(conn: sa.Connection) -> dict[str, object]:
    inspector = sa.inspect(conn)
    schemas = inspector.get_schema_names()
    tables = inspector.get_table_names(schema="marts")
    assert set(MARTS) <= set(tables), tables
    row: dict[str, object] = {"schemas": len(schemas)}
    row["published_at"] = str(conn.execute(sa.text("select published_at from _published")).scalar())
    for mart in MARTS:
        conn.execute(sa.text(f"select * from marts.{mart} limit 20")).fetchall()
        row[mart] = conn.execute(sa.text(f"select count(*) from marts.{mart}")).scalar()
    return row


def main() -> None:
    snapshot, out, stop, mode = sys.argv[1:5]
    engine = sa.create_engine(
        f"duckdb:///{snapshot}",
        connect_args={"read_only": True},
        poolclass=NullPool,
        hide_parameters=True,
    )
    held = engine.connect() if mode == "held" else None
    with Path(out).open("a") as sink:
        while not Path(stop).exists():
            if held is not None:
                row = observe(held)
            else:
                with engine.connect() as conn:
                    row = observe(conn)
            sink.write(json.dumps(row) + "\n")
            sink.flush()
            time.sleep(0.05)
    if held is not None:
        held.close()


if __name__ == "__main__":
    main()
