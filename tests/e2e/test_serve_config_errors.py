"""``wfm-sync webhooks serve`` (the installed command) with a setting of the wrong kind or an inbox
it cannot open: one line naming the setting, exit 2, before it says "receiving", no traceback and
no password shown."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import WFM_SYNC

PASSWORD = "s3cret-pw-7d1e"


def serve(tmp_path: Path, *args: str, **settings: str) -> subprocess.CompletedProcess[str]:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("WEBHOOKS__")}
    env.update(WEBHOOKS__TOKEN="tok", COLUMNS="300",
               WEBHOOKS__INBOX_URL=f"sqlite:///{tmp_path / 'inbox.sqlite3'}")  # fmt: skip
    env.update(settings)
    return subprocess.run([*WFM_SYNC, "webhooks", "serve", "--port", "9", *args], env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, done.stderr[-2000:]
    assert "receiving" not in done.stderr and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.mark.parametrize(
    ("name", "value", "kind", "example"),
    [
        ("QUEUE_SIZE", "lots", "a whole number", "1000"),
        ("MAX_BODY_BYTES", "1.5", "a whole number", "1048576"),
        ("QUARANTINE_MAX_BYTES", "big", "a whole number", "268435456"),
        ("DEADLINE_SECONDS", "soon", "a number", "10"),
        ("ROTATION_GRACE_SECONDS", "5min", "a number", "300"),
    ],
)
def test_a_number_setting_that_is_not_a_number_is_named_in_one_line(
    tmp_path: Path, name: str, value: str, kind: str, example: str
):
    line = one_line(serve(tmp_path, **{f"WEBHOOKS__{name}": value}))
    assert line == (
        f"cannot start: WEBHOOKS__{name}={value!r} is not {kind}; give one, e.g. {example} (the "
        "default, also used when it is unset)"
    )
    assert not (tmp_path / "inbox.sqlite3").exists()  # before any work


def test_an_unreachable_postgresql_inbox_is_named_with_its_password_hidden(tmp_path: Path):
    url = f"postgresql://wfm:{PASSWORD}@127.0.0.1:9/wfm"  # nothing listens on the discard port
    line = one_line(serve(tmp_path, "--inbox-url", url))
    assert line.startswith(
        "cannot start: the inbox postgresql://wfm:***@127.0.0.1:9/wfm (--inbox-url) cannot be "
        'opened: connection to server at "127.0.0.1", port 9 failed: Connection refused; check '
    )
    assert PASSWORD not in line


def test_a_postgresql_inbox_refusing_the_credentials_is_named_with_the_setting(
    tmp_path: Path, postgres: str
):
    """The test server trusts its one user: an unknown user is what it refuses."""
    url = postgres.replace("wfm:wfm-test@", f"intruder:{PASSWORD}@")
    line = one_line(serve(tmp_path, WEBHOOKS__INBOX_URL=url))
    assert line.startswith("cannot start: the inbox postgresql://intruder:***@127.0.0.1:")
    assert "(WEBHOOKS__INBOX_URL) cannot be opened: connection to server at" in line
    assert 'FATAL:  role "intruder" does not exist' in line
    assert PASSWORD not in line
