"""Before `eval chat` spends a model turn: every plugin, capability and skill a task names is
installed, so a typo fails at once (naming every one) instead of as a task that cannot pass."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from homeclaw_cli.app.eval_chat_tasks import ChatTask
from homeclaw_cli.catalog.registry import Registry
from homeclaw_cli.catalog.skills import SkillRegistry
from homeclaw_cli.errors import problems_error
from homeclaw_cli.suggest import did_you_mean

# What an `allow` item may name besides a plugin: the approval keys of the built-in and skill
# tools (core/approval.ToolAction.rule_keys).
OTHER_TOOLS = ("current_time", "fetch_url", "read_file", "list_dir", "read_skill", "run_skill")
HINT = (
    "fix the ids (`homeclaw plugin list` and `homeclaw skill list` show what is installed), "
    "or install what is missing"
)


@dataclass
class Installed:
    registry: Registry
    skills: SkillRegistry

    def plugin(self, plugin_id: str) -> str | None:
        """Why `plugin_id` cannot be called, or None."""
        if plugin_id in self.registry.plugins:
            return None
        if plugin_id in self.registry.disabled:
            return f"plugin {plugin_id!r} is disabled (`homeclaw plugin enable {plugin_id}`)"
        return (
            f"plugin {plugin_id!r} is not installed{did_you_mean(plugin_id, self.registry.plugins)}"
        )

    def capability(self, plugin_id: str, capability: str) -> str | None:
        entry = self.registry.plugins.get(plugin_id)
        if entry is None:
            return self.plugin(plugin_id)
        caps = [c.id for c in entry.manifest.capabilities]
        if capability in caps:
            return None
        fix = did_you_mean(capability, caps) or f" (it has: {', '.join(caps)})"
        return f"plugin {plugin_id!r} has no capability {capability!r}{fix}"

    def skill(self, skill_id: str) -> str | None:
        names = {n.casefold() for s in self.skills.skills.values() for n in (s.id, s.name)}
        if skill_id.casefold() in names:
            return None
        if skill_id in self.skills.disabled:
            return f"skill {skill_id!r} is disabled (`homeclaw skill enable {skill_id}`)"
        return f"skill {skill_id!r} is not installed{did_you_mean(skill_id, self.skills.skills)}"

    def allowed(self, key: str) -> str | None:
        """An `allow` item: `plugin`, `plugin.capability`, a tool, or `run_skill.<skill>`."""
        head, _, tail = key.partition(".")
        if tail:
            return self.skill(tail) if head == "run_skill" else self.capability(head, tail)
        if key in OTHER_TOOLS or key in self.registry.plugins:
            return None
        if key in self.registry.disabled:
            return self.plugin(key)
        fix = did_you_mean(key, [*self.registry.plugins, *OTHER_TOOLS])
        return f"{key!r} is no installed plugin or tool{fix}"


def check_installed(
    tasks: list[ChatTask], registry: Registry, skills: SkillRegistry, tasks_file: str
) -> None:
    """Raise one UsageError naming each task's unknown plugin, capability or skill."""
    installed = Installed(registry, skills)
    problems = [
        f"{tasks_file}:{task.lines.get(key, task.line)}: {problem}"
        for task in tasks
        for key, problem in _problems(task, installed)
    ]
    if problems:
        title = f"{tasks_file}: {len(problems)} unknown ids"
        raise problems_error(title, problems, HINT)


def _problems(task: ChatTask, installed: Installed) -> Iterator[tuple[str, str]]:
    """(field, problem) for each id of the task that is not installed."""
    found = [("plugin", installed.plugin(p)) for p in task.plugins]
    found += [("needs", installed.plugin(p)) for need in task.need_plugins for p in need]
    plugin = task.plugin if isinstance(task.plugin, str) else None
    if task.capability and plugin and installed.plugin(plugin) is None:  # else named above
        found.append(("capability", installed.capability(plugin, task.capability)))
    if task.skill:
        found.append(("skill", installed.skill(task.skill)))
    found += [("allow", installed.allowed(key)) for key in task.allow]
    for key, problem in found:
        if problem is not None:
            yield key, f"allow: {problem}" if key == "allow" else problem
