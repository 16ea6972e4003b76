"""Who is using this session: the signed-in user's actor (for the audit trail) and role (for the
pages), or the one local user of a server without an ``[auth]`` section (every right)."""

from dataclasses import dataclass

from forestviz.store.audit import LOCAL, Actor


@dataclass(frozen=True)
class Identity:
    """The actor the audit trail names and the role the pages check (``ui.access.ROLES``)."""

    actor: Actor
    role: str
    signed_in: bool


LOCAL_USER = Identity(actor=LOCAL, role="admin", signed_in=False)


def who() -> Identity:
    """This session's identity (local mode: :data:`LOCAL_USER`)."""
    return LOCAL_USER
