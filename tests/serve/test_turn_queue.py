"""The queue's rules on their own (no server): order per session, the limit, the one writer
of the shared workspace, the bound, withdrawing, closing."""

from __future__ import annotations

import pytest

from holon_core.serve.queue import (
    DEFAULT_RETRY_AFTER,
    QueueClosed,
    QueueFull,
    Ticket,
    TurnQueue,
    WorkspaceUse,
)


def _queue(**limits: int) -> tuple[TurnQueue, list[str]]:
    started: list[str] = []
    return TurnQueue(lambda t: started.append(t.response_id), **limits), started


def _ticket(name: str, session: str, use: WorkspaceUse = "none") -> Ticket:
    return Ticket(name, session, name, use)


def test_one_session_runs_in_order_others_pass_it():
    queue, started = _queue(max_concurrent=2)
    a1, a2, b1 = _ticket("a1", "a"), _ticket("a2", "a"), _ticket("b1", "b")
    assert queue.submit(a1) is True
    assert queue.submit(a2) is False  # its session is busy
    assert queue.submit(b1) is True  # another session takes the second place
    assert started == ["a1", "b1"]
    queue.finish(b1)
    assert started == ["a1", "b1"]  # a2 still waits for a1, not for a free place
    queue.finish(a1)
    assert started == ["a1", "b1", "a2"]
    assert queue.turns_served == 2


def test_the_limit_holds_and_frees_in_arrival_order():
    queue, started = _queue(max_concurrent=1)
    tickets = [_ticket(f"t{i}", f"s{i}") for i in range(3)]
    assert [queue.submit(t) for t in tickets] == [True, False, False]
    queue.finish(tickets[0])
    assert started == ["t0", "t1"]
    running, waiting = queue.tickets()
    assert running == [tickets[1]] and waiting == [tickets[2]]


@pytest.mark.parametrize(
    ("first", "second", "side_by_side"),
    [
        ("write", "write", False),
        ("write", "read", False),
        ("read", "write", False),
        ("read", "read", True),
        ("write", "none", True),
        ("none", "write", True),
    ],
)
def test_the_shared_workspace_has_one_writer(first, second, side_by_side):
    queue, _ = _queue(max_concurrent=2)
    queue.submit(_ticket("one", "s1", first))
    assert queue.submit(_ticket("two", "s2", second)) is side_by_side


def test_a_full_queue_refuses_with_a_retry_after():
    queue, _ = _queue(max_queued=1)
    queue.submit(_ticket("run", "s1"))
    queue.submit(_ticket("wait", "s2"))
    with pytest.raises(QueueFull) as full:
        queue.submit(_ticket("more", "s3"))
    assert full.value.queued == 1 and full.value.retry_after == DEFAULT_RETRY_AFTER
    assert [t.response_id for t in queue.tickets()[1]] == ["wait"]  # the refused one is gone


def test_no_waiting_room_still_starts_what_can_run():
    queue, _ = _queue(max_queued=0, max_concurrent=2)
    assert queue.submit(_ticket("a", "s1")) is True
    with pytest.raises(QueueFull):
        queue.submit(_ticket("a2", "s1"))


def test_a_withdrawn_ticket_never_starts_and_unblocks_its_session():
    queue, started = _queue()
    running, waiting, later = _ticket("r", "s1"), _ticket("w", "s2"), _ticket("l", "s2")
    for ticket in (running, waiting, later):
        queue.submit(ticket)
    assert queue.withdraw(running, "cancelled") is False  # it runs: a cancel stops it instead
    assert queue.withdraw(waiting, "client_disconnected") is True
    assert waiting.state == "withdrawn" and waiting.done.is_set()
    queue.finish(running)
    assert started == ["r", "l"]


def test_a_closed_queue_accepts_nothing_and_names_what_waits():
    queue, _ = _queue()
    queue.submit(_ticket("r", "s1"))
    waiting = _ticket("w", "s2")
    queue.submit(waiting)
    assert queue.close() == [waiting]
    with pytest.raises(QueueClosed):
        queue.submit(_ticket("late", "s3"))
