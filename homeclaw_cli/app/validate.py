"""`plugin validate`: find the plugins under the given paths and check each one."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from homeclaw_cli.app.validate_duplicates import add_duplicate_id_warnings
from homeclaw_cli.catalog.plugin_loader import LoadResult, is_plugin_folder, load_plugin
from homeclaw_cli.catalog.registry import plugin_folders
from homeclaw_cli.core.diagnostics import Diagnostic, has_errors
from homeclaw_cli.core.examples import WHY_EXAMPLES, capabilities_without_examples, examples_fix
from homeclaw_cli.errors import missing_path


@dataclass
class ValidationReport:
    results: list[LoadResult]
    strict: bool = False

    def passed(self, result: LoadResult) -> bool:
        return result.manifest is not None and not has_errors(
            result.diagnostics, strict=self.strict
        )

    @property
    def ok(self) -> bool:
        return all(self.passed(r) for r in self.results)

    def to_json(self) -> dict[str, Any]:
        return {
            "valid": self.ok,
            "strict": self.strict,
            "plugins": [
                {
                    "path": str(r.manifest_path or r.folder),
                    "id": r.manifest.id if r.manifest else None,
                    "valid": self.passed(r),
                    "legacy": r.legacy,
                    "errors": [d.to_json() for d in r.diagnostics if d.severity == "error"],
                    "warnings": [d.to_json() for d in r.diagnostics if d.severity == "warning"],
                }
                for r in self.results
            ],
        }


def validate_paths(paths: list[Path], *, strict: bool = False) -> ValidationReport:
    """Validate plugin folders, manifest files, or folders of plugins."""
    results: list[LoadResult] = []
    for path in paths:
        if not path.exists():
            raise missing_path(
                path, hint="give a plugin folder, a manifest file or a folder of plugins"
            )
        if path.is_file() or is_plugin_folder(path):
            results.append(load_plugin(path))
            continue
        folders = [f for f in plugin_folders(path) if f != path]
        if not folders:
            results.append(load_plugin(path))  # reports "no manifest here"
        results.extend(load_plugin(folder) for folder in folders)
    results = _once_each(results)
    for result in results:
        result.diagnostics.extend(examples_advice(result))
    add_duplicate_id_warnings(results)
    return ValidationReport(results, strict)


def _once_each(results: list[LoadResult]) -> list[LoadResult]:
    """A folder given twice (`a` and `a/plugin.yaml`) is validated once, not a duplicate."""
    seen: set[Path] = set()
    kept: list[LoadResult] = []
    for result in results:
        folder = result.folder.resolve()
        if folder not in seen:
            seen.add(folder)
            kept.append(result)
    return kept


def examples_advice(result: LoadResult) -> list[Diagnostic]:
    """A warning when no author example speaks for a capability: retrieval finds a plugin by
    the requests its author wrote more often than by its description alone
    (benchmarks/retrieval/RESULTS.md). Said by `plugin validate` only: `plugin show` lists the
    examples sync --expand generated instead."""
    manifest = result.manifest
    if manifest is None or result.legacy or result.manifest_path is None:
        return []  # a legacy config.yml has no place for examples
    missing = capabilities_without_examples(manifest)
    if not missing:
        return []
    if len(manifest.callable_capabilities()) == 1:
        field, where, message = "examples", "the plugin", "no example requests"
    else:
        field, where = "capabilities", "each capability"
        names = ", ".join(c.id for c in missing)
        message = f"{len(missing)} capabilities have no example requests ({names})"
        if manifest.examples:
            message += " (the plugin's own examples do not say which capability they are for)"
    return [
        Diagnostic(
            "warning",
            "examples-missing",
            result.manifest_path,
            f"{message}; {WHY_EXAMPLES}",
            field=field,
            hint=examples_fix(where),
        )
    ]
