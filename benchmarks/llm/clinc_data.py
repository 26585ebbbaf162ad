"""Reading CLINC150 (clinc/oos-eval, CC BY 3.0, Larson et al. 2019) for the task writers."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from task_file import clone_commit

DATA = "data/data_full.json"


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    """The clone (or its data_full.json) to read, and its commit when git cannot tell."""
    parser.add_argument("oos_eval", type=Path, help="a clinc/oos-eval clone or its data_full.json")
    parser.add_argument("--commit", default="", help="the clone's commit, when not found from it")


def read_clinc(args: argparse.Namespace) -> tuple[dict[str, list[list[str]]], str]:
    """The set's splits (`train`, `val`, `test`: [request, intent] pairs) and its commit."""
    source = args.oos_eval if args.oos_eval.is_file() else args.oos_eval / DATA
    commit = args.commit or clone_commit(source)
    return json.loads(source.read_text(encoding="utf-8")), commit
