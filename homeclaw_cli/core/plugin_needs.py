"""What a plugin needs configured before it can work: the `requires` list of its manifest.

    requires:
      - env: NEWSAPI_KEY        # set in the environment...
        config: api_key         # ...or this key set in the plugin's config.yml (inline plugins)

A plugin with an unmet need is not offered in chat (a small model calls it anyway and reads
"needs a key" instead of answering) and `homeclaw doctor` names what to set. Calling it
directly still works, and still fails with the plugin's own message.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator
from pydantic_core import PydanticCustomError

ENV_VAR_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _rule(reason: str, *subpath: str) -> PydanticCustomError:
    """A manifest rule error, as core/manifest.rule_error makes them (`plugin validate` shows
    the reason at the offending key)."""
    return PydanticCustomError("manifest_rule", "{reason}", {"reason": reason, "subpath": subpath})


class Need(BaseModel):
    """One value the plugin cannot work without: an environment variable or a config key."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    env: str | None = None
    config: str | None = None

    @model_validator(mode="after")
    def _one_source(self) -> Need:
        if self.env is None and self.config is None:
            raise _rule("a need names `env` (a variable), `config` (a key), or both")
        if self.env is not None and not ENV_VAR_RE.match(self.env):
            raise _rule(f"env var name {self.env!r} is not valid (e.g. NEWSAPI_KEY)", "env")
        return self

    def describe(self, config_file: str = "config.yml") -> str:
        """`NEWSAPI_KEY (or api_key in config.yml)`: what the user can set."""
        if self.env and self.config:
            return f"{self.env} (or {self.config} in {config_file})"
        return self.env or f"{self.config} in {config_file}"


def unmet_needs(
    needs: list[Need], config: Mapping[str, Any], config_file: str = "config.yml"
) -> list[str]:
    """What is missing (from the environment and `config`), as the user would set it; [] when
    every need is met."""
    return [
        need.describe(config_file)
        for need in needs
        if not (need.env and os.environ.get(need.env))
        and not (need.config and config.get(need.config))
    ]
