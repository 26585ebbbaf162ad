"""Skill figures: SKILL.md parse time, scan time for many skills, run_skill overhead, prompt size.

python benchmarks/bench_skills.py [--skills 500] [--runs 20]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from homeclaw_cli.catalog.skill_prompt import build_skills_block  # noqa: E402
from homeclaw_cli.catalog.skills import SkillParseError, load_skill, scan_skills  # noqa: E402
from homeclaw_cli.core.tokens import estimate_tokens  # noqa: E402
from homeclaw_cli.runtime.skill_run import run_skill  # noqa: E402
from homeclaw_cli.settings import load_settings  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures" / "openclaw_skills"


def ms(samples: list[float]) -> str:
    return f"median {statistics.median(samples) * 1000:7.2f} ms  p90 {sorted(samples)[int(len(samples) * 0.9) - 1] * 1000:7.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--skills", type=int, default=500)
    parser.add_argument("--runs", type=int, default=20)
    opts = parser.parse_args()

    folders = [p for p in sorted(FIXTURES.iterdir()) if (p / "SKILL.md").is_file()]
    parse: list[float] = []
    for _ in range(opts.runs):
        started = time.perf_counter()
        for folder in folders:
            with contextlib.suppress(SkillParseError):  # the two known-bad fixtures
                load_skill(folder, "path")
        parse.append((time.perf_counter() - started) / len(folders))
    print(f"parse one OpenClaw SKILL.md ({len(folders)} files):   {ms(parse)}")

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        user = home / "data" / "skills"
        for i in range(opts.skills):
            d = user / f"skill-{i:04d}"
            (d / "scripts").mkdir(parents=True)
            (d / "SKILL.md").write_text(
                f"---\nname: skill-{i:04d}\ndescription: Skill number {i} does one thing.\n"
                'metadata: {"openclaw": {"requires": {"bins": ["sh"], "env": ["HOME"]}}}\n'
                "---\n# Steps\n" + "text\n" * 40
            )
            (d / "scripts" / "run.py").write_text("print('hi')\n")
        (user / "echo").mkdir()
        (user / "echo" / "SKILL.md").write_text("---\nname: echo\ndescription: echo\n---\n")
        (user / "echo" / "scripts").mkdir()
        (user / "echo" / "scripts" / "run.sh").write_text('echo "$@"\n')
        (user / "echo" / "scripts" / "run.py").write_text("import sys\nprint(sys.argv[1:])\n")
        settings = load_settings(
            env={"HOMECLAW_HOME": str(home), "HOMECLAW_NO_BUNDLED": "1"}, cwd=Path(tmp)
        )
        scans: list[float] = []
        for _ in range(max(3, opts.runs // 4)):
            started = time.perf_counter()
            registry = scan_skills(settings, env=dict(os.environ))
            scans.append(time.perf_counter() - started)
        print(f"scan_skills with {len(registry.skills)} skills (eligibility incl.): {ms(scans)}")

        for script, direct in (
            ("run.sh", ["sh", str(user / "echo" / "scripts" / "run.sh"), "x"]),
            ("run.py", [sys.executable, str(user / "echo" / "scripts" / "run.py"), "x"]),
        ):
            wrapped: list[float] = []
            bare: list[float] = []
            for _ in range(opts.runs):
                started = time.perf_counter()
                run_skill(settings, "echo", script, ["x"], registry=registry)
                wrapped.append(time.perf_counter() - started)
                started = time.perf_counter()
                subprocess.run(direct, capture_output=True, check=True)
                bare.append(time.perf_counter() - started)
            print(f"run_skill {script}:  {ms(wrapped)}   (bare subprocess {ms(bare)})")

        five = list(registry.skills.values())[:5]
        block = build_skills_block(five)
        bodies = sum(estimate_tokens(s.body) for s in five)
        print(
            f"<available_skills> block for 5 skills: ~{estimate_tokens(block)} tokens "
            f"(their bodies, read on demand: ~{bodies} tokens)"
        )


if __name__ == "__main__":
    main()
