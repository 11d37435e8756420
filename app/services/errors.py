"""Named errors of the service layer, beside the domain's rule violations; the web layer maps
each to one HTTP status (STYLE.md, convention 10)."""

from __future__ import annotations


class NotFound(Exception):
    """The tournament (or the thing inside it) does not exist. HTTP 404."""


class IdempotencyMismatch(Exception):
    """The same Idempotency-Key came with another body. HTTP 422."""


class IdempotencyInProgress(Exception):
    """The first request with this key has not finished yet. HTTP 409."""


class Forbidden(Exception):
    """The credential is valid but not for this table or tournament. HTTP 403. Where a
    rule draws the line (a judge penalizes only the players at their table, PN-1), the
    answer names its field and rule."""

    def __init__(self, message: str, *, field: str | None = None, rule: str | None = None):
        super().__init__(message)
        self.field = field
        self.rule = rule


class TokenRefused(Exception):
    """A judge's table token that is unknown, revoked or expired (rule TK-2). HTTP 401."""


class TokenEnded(TokenRefused):
    """A table token that was issued and is revoked or expired (rule TK-2): a real token,
    not a guess, told so even from an address over its failed sign-ins (issue 32)."""


class DatabaseBusy(Exception):
    """The database could not be had in time (a lock another process holds, a lost
    connection): nothing was changed, and the same request may be sent again. HTTP 503."""
