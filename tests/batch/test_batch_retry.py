"""Which endings ``holon batch`` tries again, and how often (the decision alone: a real run
of each ending is in test_batch_local, the 429)."""

from __future__ import annotations

import threading

import pytest

from holon_core.batch.results import CellResult
from holon_core.batch.retry import is_infrastructure, with_retries


def ending(outcome: str, reason: str | None, error: str | None = None) -> CellResult:
    return CellResult("c", "t", "claude", None, 1, outcome=outcome, reason=reason, error=error)


@pytest.mark.parametrize(
    ("result", "retried"),
    [
        (ending("failure", "rate_limited"), True),
        (ending("failure", "lost_worker"), True),
        (ending("failure", "engine_error", "request failed: connection reset by peer"), True),
        (ending("failure", "engine_error", "fetch failed: getaddrinfo EAI_AGAIN"), True),
        (ending("failure", "engine_error", "HTTP 503 Service Unavailable"), True),
        (ending("failure", "engine_error", "the model refused the tool call"), False),
        (ending("failure", "engine_crashed", "network unreachable"), False),
        (ending("failure", "timeout"), False),
        (ending("failure", "max_steps"), False),
        (ending("needs_human", "secrets_in_changes"), False),
        (ending("success", "ok"), False),
    ],
)
def test_only_infrastructure_is_retried(result: CellResult, retried: bool) -> None:
    assert is_infrastructure(result) is retried


class Waits(threading.Event):
    """An event that records each wait instead of sleeping."""

    def __init__(self) -> None:
        super().__init__()
        self.waits: list[float] = []

    def wait(self, timeout: float | None = None) -> bool:
        self.waits.append(timeout or 0.0)
        return False


def test_retries_back_off_and_stop_at_the_limit() -> None:
    cancel = Waits()
    tries: list[int] = []

    def once(n: int) -> CellResult:
        tries.append(n)
        return ending("failure", "rate_limited")

    result = with_retries(once, retries=3, backoff=2.0, cancel=cancel)
    assert tries == [1, 2, 3, 4] and result.tries == 4
    assert cancel.waits == [2.0, 4.0, 8.0]


def test_a_task_failure_is_never_retried_and_success_after_a_retry_counts_tries() -> None:
    cancel = Waits()
    endings = iter([ending("failure", "rate_limited"), ending("failure", "max_steps")])
    result = with_retries(lambda n: next(endings), retries=5, backoff=1.0, cancel=cancel)
    assert (result.reason, result.tries) == ("max_steps", 2)


def test_a_cancel_ends_the_wait() -> None:
    cancel = threading.Event()
    cancel.set()
    result = with_retries(
        lambda n: ending("failure", "rate_limited"), retries=5, backoff=60.0, cancel=cancel
    )
    assert result.tries == 1
