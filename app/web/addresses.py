"""Where tablets and phones reach the scoreboard (issue 13): the address every QR code opens.

`SCOREBOARD_PUBLIC_URL` says it when it is set. Without it, a page of the admin console
uses the address the organizer reached the console on (the request's scheme and `Host`),
which is the address of this server on the network the organizer's laptop is on. Proxies
are trusted only as far as uvicorn trusts them: it takes the scheme from `X-Forwarded-Proto`
of a proxy in `--forwarded-allow-ips` (127.0.0.1 by default); `X-Forwarded-Host` is never
read, so a proxy that rewrites the host needs `SCOREBOARD_PUBLIC_URL`.

A QR code that points at a loopback address (127.0.0.1, localhost, ::1) opens nothing on a
tablet: the page flags it, and `scoreboard serve` prints the addresses of this machine that
the hall's network can reach instead.
"""

from __future__ import annotations

import ipaddress
import socket
import struct
import sys
from collections.abc import Iterable
from urllib.parse import urlsplit

from fastapi import Request

# Whether a QR code's address can open on a tablet is judged offline too (scoreboard slips),
# without the web app: the rule lives in app.loopback, named here as well for the pages.
from app.loopback import EVERY_INTERFACE, LOOPBACK_WARNING, is_loopback
from app.loopback import loopback_warning as loopback_warning
from app.settings import Settings


def public_base(request: Request, settings: Settings) -> str:
    """The address QR codes open: SCOREBOARD_PUBLIC_URL, else the one this request came to."""
    if settings.public_url is not None:
        return settings.public_url
    return str(request.base_url).rstrip("/")


def staff_setting(settings: Settings) -> str:
    """The setting a staff's code takes its address from: said in its loopback warning."""
    return settings.staff_address[1]


def staff_base(request: Request, settings: Settings) -> str:
    """The address the staff's codes open (a judge's card, a scorer's sheet):
    Settings.staff_address, else the public one (public_base: the one this request came
    to). Where the staff have an entry of their own, the public's refuses every page of
    theirs (deploy/Caddyfile)."""
    configured, _ = settings.staff_address
    return configured if configured is not None else public_base(request, settings)


# -- this machine's addresses (scoreboard serve) --------------------------------------------------

SIOCGIFADDR = 0x8915  # Linux: an interface's IPv4 address


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback, read from its network interfaces:
    no packet is sent and no name is looked up. Linux reads each interface; elsewhere, the
    addresses the system gives this host's own name."""
    found = _interface_addresses() if sys.platform.startswith("linux") else _host_addresses()
    return sorted(set(_reachable(found)), key=lambda a: ipaddress.ip_address(a).packed)


def _reachable(addresses: Iterable[str]) -> Iterable[str]:
    for text in addresses:
        address = ipaddress.ip_address(text)
        if not (address.is_loopback or address.is_unspecified or address.is_link_local):
            yield text


def _interface_addresses() -> list[str]:
    import fcntl  # Linux and other Unixes only; lan_addresses calls this on Linux alone

    found = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        for _, name in socket.if_nameindex():
            request = struct.pack("256s", name.encode()[:15])
            try:
                answer = fcntl.ioctl(probe.fileno(), SIOCGIFADDR, request)
            except OSError:
                continue  # an interface without an IPv4 address (or down)
            found.append(socket.inet_ntoa(answer[20:24]))
    return found


def _host_addresses() -> list[str]:
    try:
        return socket.gethostbyname_ex(socket.gethostname())[2]
    except OSError:
        return []


def reach_lines(host: str, port: int, scheme: str, settings: Settings) -> list[str]:
    """What `scoreboard serve` prints at start: where the tablets and phones can open it."""
    lines = []
    if settings.public_url is not None:
        lines.append(f"QR codes open {settings.public_url} (SCOREBOARD_PUBLIC_URL)")
    if settings.staff_url is not None:
        lines.append(
            f"judges' cards and score sheets open {settings.staff_url} (SCOREBOARD_STAFF_URL)"
        )
    if settings.public_url is not None and is_loopback(settings.public_url):
        named = urlsplit(settings.public_url).hostname
        warning = LOOPBACK_WARNING.format(host=named, setting="SCOREBOARD_PUBLIC_URL")
        lines.append(f"warning: SCOREBOARD_PUBLIC_URL {warning}")
    if settings.staff_url is not None and is_loopback(settings.staff_url):
        named = urlsplit(settings.staff_url).hostname
        lines.append(
            f"warning: SCOREBOARD_STAFF_URL points at {named}, this machine only: the judges' "
            "tablets cannot open their cards. Set it to the staff's entry on the staff's "
            'network (docs/security.md, "The staff\'s entry")'
        )
    if host in EVERY_INTERFACE:
        addresses = lan_addresses()
        if addresses:
            lines.append("tablets and phones on this network can open:")
            lines.extend(f"  {scheme}://{address}:{port}" for address in addresses)
        else:
            lines.append("this machine has no network address besides loopback yet")
    elif is_loopback(f"{scheme}://{_bracketed(host)}"):
        lines.append(
            f"serving on {host} only: tablets and phones cannot reach it. "
            "Start with --host 0.0.0.0 to serve the hall's network"
        )
    else:
        lines.append(f"tablets and phones can open {scheme}://{_bracketed(host)}:{port}")
    if settings.public_url is None:
        lines.append(
            "QR codes open the address the admin console is opened at "
            "(set SCOREBOARD_PUBLIC_URL to fix one)"
        )
    return lines


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host
