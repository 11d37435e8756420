"""Whether an address opens on a tablet (issue 13): a QR code that points at a loopback
address (127.0.0.1, localhost, ::1) or a bind-all one opens nothing on the hall's tablets.
The seating slips (`scoreboard slips`, offline) and the admin console's cards both say so,
so the judgement lives here, outside the web app (app/web/addresses.py has the rest).
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from app import i18n

LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}
# Addresses a server binds to mean every interface; they are not an address to open.
EVERY_INTERFACE = {"0.0.0.0", "::", ""}
LOOPBACK_WARNING = i18n.lazy(
    "This QR code points at {host}, this machine only: tablets and phones cannot open it. "
    "Set {setting} to an address of this server on the hall's network "
    "(scoreboard serve --host 0.0.0.0 prints them), or open the console at that address."
)


def is_loopback(url: str) -> bool:
    """Whether a URL's host is this machine only (or a bind-all address, which opens nothing
    elsewhere either)."""
    host = (urlsplit(url).hostname or "").lower()
    if host in LOOPBACK_NAMES or host in EVERY_INTERFACE or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False  # a name: the hall's DNS decides, we cannot tell
    return address.is_loopback or address.is_unspecified


def loopback_warning(url: str, setting: str = "SCOREBOARD_PUBLIC_URL") -> str | None:
    """The sentence a card or a slip shows when its QR code cannot work on a tablet, naming
    the setting that gave its address (the staff's cards: SCOREBOARD_STAFF_URL, issue 32)."""
    if not is_loopback(url):
        return None
    # in the reader's language: the console's cards and the slips show it to the organizer
    return i18n.gettext(LOOPBACK_WARNING).format(host=urlsplit(url).hostname, setting=setting)
