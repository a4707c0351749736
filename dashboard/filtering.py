"""The dashboard's filters and how they become SQL conditions.

:class:`Filters` holds what the dropdowns chose; :meth:`Filters.where` writes the condition every
query of :mod:`dashboard.queries` applies to its relation. Values are quoted by
:func:`sql_literal`. :mod:`dashboard.views` re-exports these names.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

ALL = "all"
"""The dropdown value that means "no filter"."""


def sql_literal(value: object) -> str:
    """``value`` as a DuckDB SQL literal: integers and dates as such, anything else as a quoted
    string (quotes doubled). The dashboard's filter values come from its own dropdowns; quoting
    them all keeps a provider's odd id (``O'Brien``) from breaking a query."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, date):
        return f"date '{value.isoformat()}'"
    return "'" + str(value).replace("'", "''") + "'"


def choice(value: object) -> Any:
    """A dropdown's value as a filter value: ``None`` for :data:`ALL` (or nothing chosen)."""
    return None if value in (None, ALL) else value


@dataclass(frozen=True)
class Filters:
    """The dashboard's filters.

    Attributes:
        start: First local day shown (inclusive).
        end: Last local day shown (inclusive).
        scheduler_id: One scheduler (``fct_shifts.scheduler_id``), or ``None`` for all.
        job_id: One job (``job_id`` of the marts, the provider's job or sub-job id), or ``None``.
        user_id: One user (``dim_users.user_id``), or ``None``.
        group_id: One smart group (``dim_groups.group_id``): only users who belonged to it on
            the figure's day (``bridge_user_groups``), or ``None``.
        layer: One shift layer value as ``(layer_title, value_name)``
            (``fct_shift_layer_values``): only shifts carrying it, or ``None``.
    """

    start: date
    end: date
    scheduler_id: int | None = None
    job_id: str | None = None
    user_id: int | None = None
    group_id: int | None = None
    layer: tuple[str, str] | None = None

    def where(
        self,
        *,
        day: str | None = "local_date",
        scheduler: str | None = "scheduler_id",
        job: str | None = "job_id",
        user: str | None = "user_id",
        shift: str | None = "shift_assignment_key",
    ) -> str:
        """A SQL condition applying the filters to the named columns; a column given as ``None``
        is one the relation does not have, and that filter is left out of this condition (the
        group filter needs ``user``, the layer filter ``shift``). The group's membership is
        the one of ``day`` (:meth:`member`), or the current one when ``day`` is ``None``."""
        parts = ["true"]
        if day is not None:
            parts.append(f"{day} between {sql_literal(self.start)} and {sql_literal(self.end)}")
        for column, value in (
            (scheduler, self.scheduler_id),
            (job, self.job_id),
            (user, self.user_id),
        ):
            if column is not None and value is not None:
                parts.append(f"{column} = {sql_literal(value)}")
        if user is not None and self.group_id is not None:
            parts.append(self.member(user, day))
        if shift is not None and self.layer is not None:
            parts.append(self.carries_layer(shift))
        return " and ".join(parts)

    def member(self, user: str, day: str | None) -> str:
        """``user`` belonged to the chosen group on ``day`` (a date expression of the outer
        relation; the subquery's own columns are qualified, and ``bridge_user_groups`` has no
        ``local_date``, so an unqualified day column means the outer one), or, with ``day``
        ``None``, belongs to it now. A span holds from its ``valid_from`` day up to, not
        including, its ``valid_to`` day (UTC days of the syncs that saw the change); a span from
        the first sync that saw the user holds for the days before it as well: the rule
        ``fct_labour_vs_sales_daily`` ties labour to locations by."""
        if day is None:
            when = "membership.is_current"
        else:
            when = (
                f"(membership.is_from_first_sync or cast(membership.valid_from as date) <= {day})"
                f" and (membership.valid_to is null or {day} < cast(membership.valid_to as date))"
            )
        return (
            f"{user} in (select membership.user_id from marts.bridge_user_groups as membership"
            f" where membership.group_id = {sql_literal(self.group_id)} and {when})"
        )

    def carries_layer(self, shift: str) -> str:
        """The shift assignment ``shift`` carries the chosen layer value."""
        assert self.layer is not None
        title, value = self.layer
        return (
            f"{shift} in (select layer.shift_assignment_key"
            " from marts.fct_shift_layer_values as layer"
            f" where layer.layer_title = {sql_literal(title)}"
            f" and layer.value_name = {sql_literal(value)})"
        )

    def describe(self, names: dict[str, str]) -> str:
        """One line naming the filters, for headings: ``names`` maps ``scheduler``, ``job``,
        ``user`` and ``group`` to the chosen one's label."""
        parts = [f"{self.start:%d %b %Y} to {self.end:%d %b %Y}"]
        for key, value in (
            ("scheduler", self.scheduler_id),
            ("job", self.job_id),
            ("user", self.user_id),
            ("group", self.group_id),
        ):
            if value is not None:
                parts.append(f"{key} {names.get(key, value)}")
        if self.layer is not None:
            parts.append(f"shifts with {self.layer[0]}: {self.layer[1]}")
        return ", ".join(parts)
