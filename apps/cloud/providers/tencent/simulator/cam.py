"""CAM as the simulator plays it: what each SecretId may call.

A credential's policy allows some actions (None: every action) minus some denied ones, and may
limit StopInstances/StartInstances to instances carrying one tag (a ``qcs:resource_tag``
condition). Anything outside the policy is answered ``UnauthorizedOperation.CamNoAuth``, as
Tencent answers a sub-account key without the permission.
"""

from __future__ import annotations

from dataclasses import dataclass

from .constants import READ_ONLY_SECRET_ID, WRITE_SECRET_ID
from .operations import START_INSTANCES, STOP_INSTANCES, WRITE_ACTIONS


@dataclass(frozen=True)
class CamPolicy:
    """The permissions of one SecretId."""

    allowed_actions: frozenset[str] | None = None  # None: every action
    denied_actions: frozenset[str] = frozenset()
    # (key, value): StopInstances/StartInstances only on instances with this tag.
    resource_tag: tuple[str, str] | None = None

    def allows(self, action: str) -> bool:
        """Whether the policy grants the action at all (the tag is checked per instance)."""
        if action in self.denied_actions:
            return False
        return self.allowed_actions is None or action in self.allowed_actions


FULL_ACCESS = CamPolicy()
READ_ONLY = CamPolicy(denied_actions=WRITE_ACTIONS)
# Exactly the policy docs/automation.md asks users to attach to GPU Ledger's write key.
STOP_START_ONLY = CamPolicy(
    allowed_actions=frozenset({STOP_INSTANCES, START_INSTANCES, "DescribeInstances"})
)

# SecretId -> policy; a SecretId not listed has full access (the default pair).
DEFAULT_POLICIES: dict[str, CamPolicy] = {
    READ_ONLY_SECRET_ID: READ_ONLY,
    WRITE_SECRET_ID: STOP_START_ONLY,
}
