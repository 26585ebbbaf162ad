"""The approval step: permissions an install adds over what was approved need a yes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from homeclaw_cli.app.install.kinds import StagedItem
from homeclaw_cli.core.manifest import Permissions
from homeclaw_cli.core.permissions import Kind, PermissionDiff, diff_permissions
from homeclaw_cli.errors import HomeclawError
from homeclaw_cli.settings import Settings
from homeclaw_cli.state import audit
from homeclaw_cli.state.approvals import ApprovalStore


class ApprovalRefused(HomeclawError):
    """The user (or a script without --yes) did not approve the requested permissions."""


@dataclass
class PermissionRequest:
    """What the approver is asked: only `diff.added` needs a yes. With nothing added the
    approver still sees the notices (an inline plugin runs in homeclaw's process) before the
    swap, and its answer does not count: an install that asks nothing never stops."""

    item_id: str
    requested: Permissions
    diff: PermissionDiff
    upgrade: bool
    notices: list[str]
    kind: Kind = "plugin"

    @property
    def asks(self) -> bool:
        return not self.diff.added.empty


Approver = Callable[[PermissionRequest], bool]


def refuse_new_permissions(request: PermissionRequest) -> bool:
    """The approver for callers that cannot ask: anything new is refused."""
    return False


def permission_diff(approvals: ApprovalStore, kind: Kind, item: StagedItem) -> PermissionDiff:
    """What `item` requests compared with what was approved for its id before."""
    approved = approvals.get(item.id, kind)
    return diff_permissions(approved, item.permissions)


def require_approval(
    settings: Settings,
    kind: Kind,
    item: StagedItem,
    diff: PermissionDiff,
    *,
    upgrade: bool,
    approve: Approver,
) -> None:
    """Ask `approve` about the added permissions; a no is audited and raises ApprovalRefused.
    Nothing added: `approve` only reads the notices, if there are any."""
    request = PermissionRequest(item.id, item.permissions, diff, upgrade, item.notices, kind)
    if not request.asks:
        if request.notices:
            approve(request)
        return
    if approve(request):
        return
    audit.record(settings.data_dir, "approval-refused", item.id, kind=kind)
    raise ApprovalRefused(
        f"{kind} {item.id!r} was not installed: its permissions were not approved"
    )
