"""`config.start` of an http or url-transport MCP plugin: a server homeclaw manages itself.

With it, homeclaw starts the plugin's server on first use (in its own process group, with the
environment rules of a subprocess plugin), waits until `ready` answers, reuses it while it
lives and stops it when the chat, `serve` or the one-shot command ends. The command comes from
the manifest of an installed (trusted) plugin; `plugin show` prints it.
"""

from __future__ import annotations

from urllib.parse import urlparse

from pydantic import BaseModel, ConfigDict, Field, field_validator

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})


def check_http_url(value: str, what: str) -> str:
    """`value` unchanged when it is an http(s) URL with a host; ValueError naming `what`."""
    parsed = urlparse(value)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ValueError(f"{what} {value!r} is not an http(s) URL, e.g. http://127.0.0.1:3100")
    return value


class ServerStart(BaseModel):
    """How to start the plugin's server and how to tell it is up."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    command: str = Field(description="resolved like a subprocess plugin's (python, ./x, PATH)")
    args: list[str] = Field(default_factory=list)
    cwd: str | None = Field(default=None, description="default: the plugin folder")
    env: dict[str, str] = Field(default_factory=dict)
    ready: str = Field(description="a URL that answers (status < 500) once the server is up")
    timeout_s: float = Field(default=20.0, gt=0, le=600)

    @field_validator("ready")
    @classmethod
    def _ready(cls, value: str) -> str:
        return check_http_url(value, "ready")

    def ready_host(self) -> str:
        return (urlparse(self.ready).hostname or "").lower()


def same_server(first: str, second: str) -> bool:
    """True when two URLs name the same scheme, host and port."""
    a, b = urlparse(first), urlparse(second)
    return (a.scheme, a.hostname, a.port or _default_port(a.scheme)) == (
        b.scheme,
        b.hostname,
        b.port or _default_port(b.scheme),
    )


def _default_port(scheme: str) -> int:
    return 443 if scheme == "https" else 80
