"""``dev.py``'s checks side by side (:func:`dev.run_together`): every linter starts at once, each
one's output is shown whole and in the listed order, and the first failure is raised only after
all have ended. Real processes of the project's environment."""

from __future__ import annotations

import subprocess

import pytest

import dev


def test_checks_run_side_by_side_and_every_failure_is_shown(
    capsys: pytest.CaptureFixture[str],
) -> None:
    slow = "import time; time.sleep(2); print('slow ok')"
    failing = "import sys; print('fails at once'); sys.exit(3)"
    last = "import sys; print('later failure'); sys.exit(5)"
    with pytest.raises(subprocess.CalledProcessError) as raised:
        dev.run_together(
            [["python", "-c", slow], ["python", "-c", failing], ["python", "-c", last]]
        )
    assert raised.value.returncode == 3  # the first failure in the listed order
    out = capsys.readouterr().out
    order = [out.index(text) for text in ("slow ok", "fails at once", "later failure")]
    assert order == sorted(order)  # each output whole, in the listed order
    headers = [line for line in out.splitlines() if line.startswith("+ python")]
    assert [h.split("(exit ")[1].split(",")[0] for h in headers] == ["0", "3", "5"]
    # the failing ones ended at once: they ran beside the slow one, not after it
    seconds = [int(h.rsplit(", ", 1)[1].removesuffix(" s)")) for h in headers]
    assert seconds[0] >= 2 and seconds[1] <= 1


def test_checks_that_pass_raise_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    dev.run_together([["python", "-c", "print('a')"], ["python", "-c", "print('b')"]])
    out = capsys.readouterr().out
    assert out.index("a\n") < out.index("b\n")
