"""`homeclaw config ...`: what the effective configuration is and where it came from."""

from __future__ import annotations

import typer

from homeclaw_cli.surfaces.cli.options import JsonFlag
from homeclaw_cli.surfaces.cli.state import get_state
from homeclaw_cli.surfaces.render import Output

app = typer.Typer()


@app.command("show")
def show(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Print every setting, its value and where it came from."""
    from homeclaw_cli.settings import effective_values

    settings = get_state(ctx).settings()
    out = Output(json_mode=as_json)
    rows = effective_values(settings)
    exists = settings.config_path.is_file()
    payload = {
        "config_path": str(settings.config_path),
        "config_exists": exists,
        "values": {key: {"value": value, "source": src} for key, value, src in rows},
    }

    def show() -> None:
        out.info(f"config file: {settings.config_path}{'' if exists else ' (not created yet)'}")
        out.table(["KEY", "VALUE", "SOURCE"], rows, styles={"KEY": "cyan", "SOURCE": "dim"})

    out.result(payload, show)


@app.command("path")
def path(ctx: typer.Context) -> None:
    """Print the path of the config file homeclaw reads (also when it is invalid)."""
    from homeclaw_cli.settings import config_file_path

    Output().text(str(config_file_path(get_state(ctx).config_file)))
