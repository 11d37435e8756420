"""Where tablets and phones reach the scoreboard (issue 13, section 4): the loopback flag on
QR codes, this machine's addresses from its interfaces, and what `scoreboard serve` prints."""

from __future__ import annotations

import sys

import pytest
from pydantic import ValidationError

from app.settings import Settings
from app.web import addresses
from app.web.addresses import is_loopback, lan_addresses, loopback_warning, reach_lines


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000",
        "http://127.1.2.3:8101/judge?token=x",
        "http://localhost:8101",
        "http://LOCALHOST",
        "http://tablet.localhost:8000",
        "http://[::1]:8000",
        "http://0.0.0.0:8000",
        "https://[::]:8443",
    ],
)
def test_a_loopback_or_bind_all_address_is_flagged(url: str) -> None:
    assert is_loopback(url)
    warning = loopback_warning(url)
    assert warning is not None and "tablets and phones cannot open it" in warning
    assert "SCOREBOARD_PUBLIC_URL" in warning


@pytest.mark.parametrize(
    "url",
    [
        "http://192.168.1.10:8000",
        "http://10.0.0.5:8101/p/7",
        "https://scores.example.org",
        "http://[fd00::5]:8000",
        "http://hall-server:8000",
    ],
)
def test_an_address_of_the_network_is_not_flagged(url: str) -> None:
    assert not is_loopback(url)
    assert loopback_warning(url) is None


def test_the_interfaces_are_read_and_loopback_is_left_out() -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("the interfaces are read with a Linux ioctl")
    # The loopback interface is there on every Linux machine: the ioctl reads it...
    assert "127.0.0.1" in addresses._interface_addresses()
    # ...and it is never offered to a tablet.
    assert all(not is_loopback(f"http://{a}") for a in lan_addresses())


def test_only_addresses_a_tablet_can_reach_are_offered(monkeypatch: pytest.MonkeyPatch) -> None:
    found = ["127.0.0.1", "192.168.1.10", "169.254.3.4", "10.0.0.5", "192.168.1.10"]
    monkeypatch.setattr(addresses, "_interface_addresses", lambda: found)
    monkeypatch.setattr(addresses, "_host_addresses", lambda: found)

    assert lan_addresses() == ["10.0.0.5", "192.168.1.10"]  # link-local and loopback out


def test_serve_on_every_interface_prints_the_lan_addresses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(addresses, "lan_addresses", lambda: ["10.0.0.5", "192.168.1.10"])

    lines = reach_lines("0.0.0.0", 8101, "http", Settings())

    assert "  http://10.0.0.5:8101" in lines and "  http://192.168.1.10:8101" in lines
    assert any("SCOREBOARD_PUBLIC_URL" in line for line in lines)


def test_serve_on_loopback_says_the_tablets_cannot_reach_it() -> None:
    lines = reach_lines("127.0.0.1", 8101, "http", Settings())

    assert any("tablets and phones cannot reach it" in line for line in lines)
    assert any("--host 0.0.0.0" in line for line in lines)


def test_serve_with_a_public_url_prints_it_and_flags_a_loopback_one() -> None:
    good = reach_lines("0.0.0.0", 8000, "https", Settings(public_url="https://scores.example"))
    assert good[0] == "QR codes open https://scores.example (SCOREBOARD_PUBLIC_URL)"
    assert not any(line.startswith("warning") for line in good)

    bad = reach_lines("0.0.0.0", 8000, "http", Settings(public_url="http://localhost:8000"))
    assert any(line.startswith("warning: SCOREBOARD_PUBLIC_URL") for line in bad)


# -- the setting ------------------------------------------------------------------------------


def test_the_public_url_is_unset_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SCOREBOARD_PUBLIC_URL", raising=False)
    assert Settings().public_url is None
    monkeypatch.setenv("SCOREBOARD_PUBLIC_URL", "")
    assert Settings().public_url is None


def test_the_public_url_loses_its_trailing_slash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCOREBOARD_PUBLIC_URL", " http://192.168.1.10:8101/ ")
    assert Settings().public_url == "http://192.168.1.10:8101"


@pytest.mark.parametrize(
    "url", ["192.168.1.10:8000", "ftp://hall", "http://", "http://hall:8000/?x=1", "http://h/#a"]
)
def test_a_public_url_that_is_not_an_address_is_refused(url: str) -> None:
    with pytest.raises(ValidationError, match="SCOREBOARD_PUBLIC_URL"):
        Settings(public_url=url)


@pytest.mark.parametrize("url", ["192.168.20.1:8443", "ftp://staff", "https://staff/?x=1"])
def test_a_staff_url_that_is_not_an_address_is_refused_by_its_own_name(url: str) -> None:
    """The staff's entry (issue 32) is checked as the public address is, and the message
    names the setting that was wrong."""
    with pytest.raises(ValidationError, match="SCOREBOARD_STAFF_URL") as refused:
        Settings(staff_url=url)
    assert "SCOREBOARD_PUBLIC_URL" not in str(refused.value)


def test_serve_with_a_staff_url_prints_both_and_flags_a_loopback_one() -> None:
    settings = Settings(public_url="https://scores.example", staff_url="https://10.0.20.1:8443/")
    lines = reach_lines("0.0.0.0", 8000, "https", settings)
    assert "judges' cards and score sheets open https://10.0.20.1:8443 (SCOREBOARD_STAFF_URL)" in (
        lines
    )
    assert not any(line.startswith("warning") for line in lines)
    local = Settings(public_url="https://scores.example", staff_url="https://127.0.0.1:8443")
    flagged = reach_lines("0.0.0.0", 8000, "https", local)
    (warning,) = [line for line in flagged if line.startswith("warning: SCOREBOARD_STAFF_URL")]
    # it names what to set: the staff's address, not the public's (seen: "Set
    # SCOREBOARD_PUBLIC_URL" under SCOREBOARD_STAFF_URL's warning)
    assert "SCOREBOARD_PUBLIC_URL" not in warning and "127.0.0.1" in warning
