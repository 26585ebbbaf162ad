"""The CLI must start fast: light commands never load the heavy stacks."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT

HEAVY = [
    "torch",
    "sentence_transformers",
    "lancedb",
    "pyarrow",
    "transformers",
    "mcp",
    "ollama",
    "fastapi",
    "uvicorn",
    "starlette",
]

PROBE = """
import json, sys
from homeclaw_cli.surfaces.cli.main import app
try:
    app(sys.argv[1:], prog_name="homeclaw")
except SystemExit:
    pass
heavy = %r
print(json.dumps(sorted(m for m in heavy if m in sys.modules)))
"""


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["plugin", "validate", str(REPO_ROOT / "plugins")],
        ["plugin", "list"],
        ["config", "show"],
    ],
    ids=["help", "validate", "list", "config"],
)
def test_light_commands_do_not_import_heavy_modules(hc_home: object, argv: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE % HEAVY, *argv],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        timeout=60,
    )
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert loaded == [], f"`homeclaw {' '.join(argv)}` imported {loaded}"


def test_help_does_not_load_the_manifest_models(hc_home: object) -> None:
    """`homeclaw --help` needs no pydantic model: importing them costs ~85 ms of start-up."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE % ["homeclaw_cli.core.manifest", "pydantic"], "--help"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        timeout=60,
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
