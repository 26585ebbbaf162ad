"""Why an HTTP connection failed, in the one wording of the http runner and the health checks.

httpx raises ConnectError for a refused port, an unknown host and a failed TLS handshake
alike; only the first means "the server is not running". The cause chain (or, for an error
made without one, its text) tells them apart.
"""

from __future__ import annotations

import socket
import ssl
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import httpx

ConnectKind = Literal["refused", "dns", "tls", "other"]

_TEXT_MARKS: tuple[tuple[ConnectKind, tuple[str, ...]], ...] = (
    ("refused", ("connection refused", "[errno 111]", "[winerror 10061]")),
    (
        "dns",
        (
            "name or service not known",
            "nodename nor servname",
            "getaddrinfo failed",
            "temporary failure in name resolution",
            "no address associated with hostname",
            "[errno -2]",
            "[errno -3]",
            "[errno -5]",
            "[errno 8]",
            "[errno 11001]",
        ),
    ),
    ("tls", ("[ssl", "ssl:", "certificate verify failed", "tlsv1")),
)


@dataclass(frozen=True)
class ConnectFailure:
    """A failed connect: its kind and the sentence that says so (`who` leads it, if given)."""

    kind: ConnectKind
    message: str


def connect_kind(exc: BaseException) -> ConnectKind:
    """What went wrong, from the exceptions behind `exc`, else from their text."""
    for current in _chain(exc):
        if isinstance(current, ConnectionRefusedError):
            return "refused"
        if isinstance(current, socket.gaierror):
            return "dns"
        if isinstance(current, ssl.SSLError | ssl.CertificateError):
            return "tls"
    text = " ".join(str(current).lower() for current in _chain(exc))
    for kind, marks in _TEXT_MARKS:
        if any(mark in text for mark in marks):
            return kind
    return "other"


def describe_connect_error(
    exc: BaseException, url: str, *, who: str = "", field: str = "the URL"
) -> ConnectFailure:
    """The sentence for a failed connect to `url`; `field` names the setting that holds it."""
    kind = connect_kind(exc)
    host = _host(url)
    lead = f"{who}: " if who else ""
    if kind == "refused":
        subject = f"{who} is not" if who else "not"
        return ConnectFailure(kind, f"{subject} running at {url} (connection refused)")
    if kind == "dns":
        return ConnectFailure(kind, f"{lead}cannot resolve host {host}: check {field}")
    reason = _reason(exc)
    if kind == "tls":
        return ConnectFailure(kind, f"{lead}TLS handshake with {host} failed: {reason}")
    return ConnectFailure(kind, f"{lead}cannot connect to {url}: {reason}")


def _host(url: str) -> str:
    try:
        return httpx.URL(url).host or url
    except httpx.InvalidURL:
        return url


def _reason(exc: BaseException) -> str:
    """The innermost message that says something (httpx repeats its cause's text)."""
    said = [str(current) for current in _chain(exc) if str(current)]
    return said[-1] if said else type(exc).__name__


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """`exc` and the exceptions behind it, outermost first (each once: chains can loop)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__
