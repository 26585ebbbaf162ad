"""runtime/connect_failure.py: a refused port, an unknown host and a failed TLS handshake
are told apart, from the cause chain or from the error's text."""

from __future__ import annotations

import socket
import ssl

import httpx
import pytest

from homeclaw_cli.runtime.connect_failure import connect_kind, describe_connect_error


def _wrapped(cause: BaseException) -> httpx.ConnectError:
    try:
        try:
            raise cause
        except BaseException as inner:
            raise httpx.ConnectError("All connection attempts failed") from inner
    except httpx.ConnectError as exc:
        return exc


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (_wrapped(ConnectionRefusedError(111, "Connect call failed")), "refused"),
        (_wrapped(socket.gaierror(-2, "Name or service not known")), "dns"),
        (_wrapped(ssl.SSLError(1, "[SSL: WRONG_VERSION_NUMBER] wrong version number")), "tls"),
        (httpx.ConnectError("connection refused"), "refused"),
        (httpx.ConnectError("[Errno -2] Name or service not known"), "dns"),
        (httpx.ConnectError("[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed"), "tls"),
        (_wrapped(OSError(101, "Network is unreachable")), "other"),
    ],
)
def test_connect_kind(exc: BaseException, kind: str) -> None:
    assert connect_kind(exc) == kind


def test_descriptions() -> None:
    url = "https://example.invalid:8443"
    refused = _wrapped(ConnectionRefusedError(111, "refused"))
    assert describe_connect_error(refused, url).message == (
        f"not running at {url} (connection refused)"
    )
    assert describe_connect_error(refused, url, who="plugin x").message == (
        f"plugin x is not running at {url} (connection refused)"
    )
    dns = _wrapped(socket.gaierror(-2, "Name or service not known"))
    assert describe_connect_error(dns, url, who="plugin x", field="base_url").message == (
        "plugin x: cannot resolve host example.invalid: check base_url"
    )
    tls = _wrapped(ssl.SSLError(1, "[SSL] bad"))
    assert describe_connect_error(tls, url).message == (
        "TLS handshake with example.invalid failed: [SSL] bad"
    )
