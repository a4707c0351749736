"""The emulator's stream domains (:mod:`emulator.domains`): every package under
``emulator/domains/`` is found and looped over, with no list of them anywhere else."""

from __future__ import annotations

from pathlib import Path

import pytest

import emulator.domains
from emulator.data import Dataset, EmulatorConfig
from emulator.domains import DOMAINS
from emulator.domains.domain import records_of
from emulator.domains.sales.data import Sales

ANCHOR = 1_795_132_800
SMALL = {"users": 8, "forms": 1, "schedulers": 2, "shifts": 20, "anchor": ANCHOR}


def test_every_package_is_a_domain_in_order() -> None:
    folder = Path(emulator.domains.__file__).parent
    packages = sorted(p.name for p in folder.iterdir() if (p / "__init__.py").is_file())
    assert sorted(d.name for d in DOMAINS) == packages
    assert [d.order for d in DOMAINS] == sorted(d.order for d in DOMAINS)
    # the spec steps share one random stream: this order is part of every seed's spec data, so
    # a new domain draws after these (its order number above theirs)
    drawn = [d.name for d in DOMAINS if d.spec is not None]
    assert drawn[:4] == ["pay_leave", "sales", "groups", "shift_layers"]


@pytest.mark.parametrize("data", ["emulator", "spec"])
def test_the_account_holds_the_records_of_every_domain_that_makes_some(data: str) -> None:
    ds = Dataset.generate(EmulatorConfig(**SMALL, data=data))
    step = "tidy" if data == "emulator" else "spec"
    assert sorted(ds.domains) == sorted(d.name for d in DOMAINS if getattr(d, step) is not None)
    assert records_of(ds, "sales", Sales).locations
    assert ds.operations.pay_rates is ds.domains["pay_leave"].pay_rates  # what timesheets price


def test_records_of_the_wrong_type_are_refused() -> None:
    ds = Dataset.generate(EmulatorConfig(**SMALL))
    with pytest.raises(TypeError, match="pay_leave"):
        records_of(ds, "pay_leave", Sales)
    with pytest.raises(KeyError):
        records_of(ds, "no_such_domain", Sales)
