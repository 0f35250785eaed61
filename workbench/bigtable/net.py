"""Plain socket checks on a host:port, below every other Bigtable module: is anything
listening, and does it speak HTTP/2 as every gRPC server does."""

from __future__ import annotations

import socket


def is_loopback(host: str) -> bool:
    """Whether ``host`` (host:port) names this machine: 127.0.0.0/8, ::1 or localhost."""
    import ipaddress

    name = host.rpartition(":")[0].strip("[]") or host
    if name.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def port_is_open(host: str, timeout: float = 0.5) -> bool:
    hostname, _, port = host.rpartition(":")
    try:
        with socket.create_connection((hostname or "127.0.0.1", int(port)), timeout=timeout):
            return True
    except (OSError, ValueError):
        return False


def not_grpc_message(host: str, source: str) -> str:
    return (
        f"The server at {host} ({source}) is not a Bigtable emulator: it does not speak gRPC "
        "(HTTP/2) — probably another program listens on that port.\n"
        "Point BIGTABLE_EMULATOR_HOST at the emulator's host:port, or unset it so the workbench "
        "starts its own (`workbench emulator start` or wb.setup())."
    )


_HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def speaks_grpc(host: str, timeout: float = 2.0) -> bool | None:
    """Whether ``host`` answers the HTTP/2 connection preface that every gRPC server answers.

    True: the first frame back is an HTTP/2 SETTINGS frame (type 4), as from the emulator.
    False: something else answered (an HTTP/1 server's "HTTP/1.1 400", a closed stream).
    None: nothing answered within ``timeout`` (a frozen or busy process): undecided.
    """
    hostname, _, port = host.rpartition(":")
    try:
        with socket.create_connection((hostname or "127.0.0.1", int(port)), timeout=timeout) as s:
            s.sendall(_HTTP2_PREFACE + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00")
            head = b""
            while len(head) < 9:
                chunk = s.recv(9 - len(head))
                if not chunk:
                    break
                head += chunk
    except TimeoutError:
        return None
    except (OSError, ValueError):
        return False
    return len(head) == 9 and head[3] == 0x04
