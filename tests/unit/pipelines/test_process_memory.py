"""The collector between a sync's steps: it collects the cyclic garbage the steps made, and
sets aside what was alive before them (``gc.freeze``) for the length of the steps only."""

from __future__ import annotations

import gc
import weakref

from pipelines.process_memory import collecting_new_objects_only, release_freed_memory


class Node:
    """An object that can sit in a reference cycle (only the collector frees it)."""

    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> weakref.ref[Node]:
    """A two-node cycle with no reference from outside; a weak reference to one node."""
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def test_a_cycle_made_inside_the_block_is_collected_between_steps() -> None:
    with collecting_new_objects_only():
        made = cycle()
        assert made() is not None
        release_freed_memory()
        assert made() is None


def test_what_was_alive_before_is_set_aside_inside_and_given_back_after() -> None:
    gc.collect()
    before = cycle()
    with collecting_new_objects_only():
        assert gc.get_freeze_count() > 0
        release_freed_memory()
        assert before() is not None  # frozen: not looked at by the collections inside
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert before() is None


def test_the_objects_are_given_back_when_a_step_raises() -> None:
    try:
        with collecting_new_objects_only():
            raise RuntimeError("a step failed")
    except RuntimeError:
        pass
    assert gc.get_freeze_count() == 0
