"""The notebook client's waits for kernel messages come in slices (workbench/report/kernel_wait.py).

A socket that misses its wake-up (zmq's edge-triggered descriptor) still hands over the waiting
message when a poll times out (pyzmq polls once more then). These tests stand in such a socket
and a clock: the wait must ask for at most one slice at a time, return the message at the end
of the first slice, and give up at the caller's own timeout."""

from __future__ import annotations

import asyncio
from queue import Empty

import pytest

from workbench.report import kernel_wait
from workbench.report.kernel_wait import SLICE_S, SlicedChannel


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


class MissesWakeups:
    """A socket whose poll never wakes early: it returns at its timeout, with 1 when a message
    was waiting all along (what pyzmq's last ``poll(0)`` finds), like a missed wake-up."""

    def __init__(self, clock: Clock, message_at: float | None) -> None:
        self.clock, self.message_at, self.polls = clock, message_at, []

    async def poll(self, ms: int) -> int:
        self.polls.append(ms)
        self.clock.now += ms / 1000
        return int(self.message_at is not None and self.clock.now >= self.message_at)


def _channel(monkeypatch, message_at):
    clock = Clock()
    monkeypatch.setattr(kernel_wait.time, "monotonic", clock.monotonic)
    sock = MissesWakeups(clock, None if message_at is None else clock.now + message_at)
    ch = SlicedChannel.__new__(SlicedChannel)  # no real socket: the poll is what is tested
    ch.socket = sock

    async def recv():
        return {"msg_type": "execute_reply"}

    ch._recv = recv
    return ch, sock, clock


def test_a_missed_wakeup_costs_one_slice_not_the_whole_timeout(monkeypatch):
    # the reply is in the socket 0.2 s into a 600 s wait; the first slice's end finds it
    ch, sock, clock = _channel(monkeypatch, message_at=0.2)
    msg = asyncio.run(ch.get_msg(timeout=600))
    assert msg == {"msg_type": "execute_reply"}
    assert sock.polls == [int(SLICE_S * 1000)]  # one slice of 1,000 ms, not 600,000


def test_no_message_gives_up_at_the_callers_timeout_in_slices(monkeypatch):
    # 2.5 s in slices of 1 s: 1,000 + 1,000 + 500 ms, then Empty (nbclient's cell timeout)
    ch, sock, clock = _channel(monkeypatch, message_at=None)
    with pytest.raises(Empty):
        asyncio.run(ch.get_msg(timeout=2.5))
    assert sock.polls == [1000, 1000, 500]
    assert clock.now == pytest.approx(1000.0 + 2.5)


def test_no_timeout_waits_in_slices_until_the_message(monkeypatch):
    # iopub waits with no timeout: still one slice at a time, the message at the fourth
    ch, sock, _ = _channel(monkeypatch, message_at=3.5)
    assert asyncio.run(ch.get_msg(timeout=None)) == {"msg_type": "execute_reply"}
    assert sock.polls == [1000, 1000, 1000, 1000]


def test_the_report_runs_its_kernels_with_the_sliced_client():
    from nbformat.v4 import new_notebook

    client = kernel_wait.notebook_client(new_notebook(), kernel_name="python3")
    km = client.create_kernel_manager()
    assert km.client_factory is kernel_wait.SlicedKernelClient
    kc = km.client()
    assert kc.shell_channel_class is SlicedChannel and kc.iopub_channel_class is SlicedChannel
