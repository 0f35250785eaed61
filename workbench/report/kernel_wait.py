"""A notebook client whose waits for kernel messages cannot miss one for a whole cell timeout.

Why: ``jupyter_client``'s async channels wait for a message with one ``zmq.asyncio`` poll
lasting the whole timeout (nbclient passes the cell's: 600 s in the suite). That poll is woken
by zmq's edge-triggered file descriptor; when the wake-up is missed (seen here on a loaded
2-core machine, about once in a few hundred cells), the reply sits in the socket until the
poll times out, and pyzmq's final ``poll(0)`` then returns it, so the run goes on with no
error, only the whole timeout later (pyzmq's ``_AsyncPoller.poll``: ``trigger_timeout`` sets
the watcher and ``on_poll_ready`` polls once more; the symptom reported as zeromq/pyzmq#1558,
"the poller will return a received event after the timeout"). Measured here
(docs/architecture.md, "Reports"): the kernel sent a cell's reply at 14:32:19, the client sent
the next cell at 14:47:19, 900 s later (that run's timeout), and the kernel answered another
client meanwhile. Waiting in slices of :data:`SLICE_S` bounds a missed wake-up to one slice
and keeps the caller's timeout whole.
"""

from __future__ import annotations

import time
import typing as t
from queue import Empty

from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_client.channels import AsyncZMQSocketChannel
from jupyter_client.manager import AsyncKernelManager
from traitlets import Type, default

SLICE_S = 1.0  # the longest a missed wake-up can delay a message


class SlicedChannel(AsyncZMQSocketChannel):
    """``get_msg`` polls for at most :data:`SLICE_S` at a time until its own timeout."""

    async def get_msg(  # type: ignore[override]
        self, timeout: float | None = None
    ) -> dict[str, t.Any]:
        assert self.socket is not None
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = SLICE_S if deadline is None else max(0.0, deadline - time.monotonic())
            if await self.socket.poll(int(min(SLICE_S, left) * 1000)):
                return await self._recv()
            if deadline is not None and time.monotonic() >= deadline:
                raise Empty


class SlicedKernelClient(AsyncKernelClient):
    shell_channel_class = Type(SlicedChannel)
    iopub_channel_class = Type(SlicedChannel)


class SlicedKernelManager(AsyncKernelManager):
    @default("client_factory")
    def _sliced_client(self) -> type:
        return SlicedKernelClient


def notebook_client(nb: t.Any, **kwargs: t.Any) -> t.Any:
    """nbclient's ``NotebookClient(nb, **kwargs)`` with the sliced waits."""
    from nbclient import NotebookClient

    return NotebookClient(nb, kernel_manager_class=SlicedKernelManager, **kwargs)
