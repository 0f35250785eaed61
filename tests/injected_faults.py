"""Faults injected into a real stream: a transient status raised mid-stream, and a stream whose
answers are replaced (shared by the read-progress and aggregate-write tests)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc


class Unavailable(grpc.RpcError):
    """What a broken connection raises: a transient status (the client cannot tell whether the
    server applied what it had sent)."""

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return "injected: connection reset"


class Wrapped:
    """A real stream, passed through a function of its responses (and which can still be
    cancelled)."""

    def __init__(self, stream: Any, responses: Iterator[Any]) -> None:
        self.stream, self.responses = stream, responses

    def __iter__(self) -> Iterator[Any]:
        return self.responses

    def cancel(self) -> None:
        self.stream.cancel()
