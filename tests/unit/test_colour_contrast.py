"""Every colour pair the pages' stylesheets draw text with has the contrast WCAG 2.2 AA asks
(issue 17): 4.5:1, or 3:1 for large text (the hall, read from metres away, and headings). Read
from the CSS itself, so a state the browser tests never reach (a stale badge, a refused hand,
an overtime clock) is held to it too.

Each rule that sets `color` is paired with the background it sets, or else with the grounds of
its page; colours with transparency are laid over the darkest and the lightest ground they may
sit on (an overlay's panel over the TV picture)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "app" / "static"
# The grounds text sits on where a rule sets no background: per stylesheet.
GROUNDS = {
    "base.css": ["--paper"],
    "spectator.css": ["--paper"],
    "admin.css": ["--paper"],
    "judge.css": ["--paper"],
    "scorer.css": ["--paper"],  # the scorer's screen: its panels are paper (issue 18)
    "checkin.css": ["--paper"],  # a player's check-in form, on the phone's paper (issue 18)
    "hall.css": ["--hall-ground", "--hall-panel"],
    # an overlay's text sits on its panel; the panel over anything the camera shows
    "overlay.css": ["--panel"],
}
# What the stylesheets cannot say: the element a rule's text sits inside, by the page's markup
# (the judge's top bar is dark ink; its clock, place and status are in it).
CONTAINERS = {
    "judge.css": {
        ".judge-where": ".judge-bar",
        ".judge-clock": ".judge-bar",
        ".judge-status": ".judge-bar",
    },
}
# What the pages' scripts put inside a sheet's containers in base.css's classes, which base.css
# colours for paper: the feed's state on a dark top bar, `status-<state>` (judge/views.js and
# judge/desk.js on the judge's bar, admin.js on the console's). Each such colour is paired with
# the container's ground, unless the sheet gives the class a colour of its own there. (Read
# alone, base.css's #8a5200 passed on white while the tablet drew it on #111, at 2.95:1.)
PLACED = {
    "judge.css": {".judge-status": re.compile(r"\.status-[a-z-]+")},
    "admin.css": {".bar": re.compile(r"\.status-[a-z-]+")},
}
# Large text (WCAG: 24 px, or 18.66 px bold, and up): 3:1 is enough. The hall's text is
# large on every screen it is drawn for (its smallest row font is 31 px at 1080p).
LARGE_TEXT_SHEETS = {"hall.css", "overlay.css"}
COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}\b|rgba?\([^)]*\)")


def _rules(text: str) -> list[tuple[str, dict[str, str]]]:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    rules = []
    for match in re.finditer(r"([^{}]+)\{([^{}]*)\}", text):
        declarations = {}
        for part in match.group(2).split(";"):
            name, colon, value = part.partition(":")
            if colon:
                declarations[name.strip()] = value.strip()
        rules.append((match.group(1).strip(), declarations))
    return rules


def _variables(sheet: Path) -> dict[str, str]:
    """base.css's custom properties, then the sheet's own (two sheets may use one name)."""
    found: dict[str, str] = {}
    for source in (STATIC / "base.css", sheet):
        for _, declarations in _rules(source.read_text()):
            found.update({k: v for k, v in declarations.items() if k.startswith("--")})
    return found


def _resolve(value: str, variables: dict[str, str]) -> str | None:
    for _ in range(5):
        match = re.fullmatch(r"var\((--[a-z0-9-]+)(?:,\s*([^)]*))?\)", value.strip())
        if match is None:
            break
        value = variables.get(match.group(1), match.group(2) or "")
    found = COLOUR.search(value)
    if found is None or "gradient" in value:
        return None
    return found.group(0)


def _rgba(colour: str) -> tuple[float, float, float, float]:
    if colour.startswith("#"):
        digits = colour[1:]
        if len(digits) in (3, 4):
            digits = "".join(d * 2 for d in digits)
        channels = [int(digits[i : i + 2], 16) for i in range(0, len(digits), 2)]
        alpha = channels[3] / 255 if len(channels) == 4 else 1.0
        return channels[0], channels[1], channels[2], alpha
    parts = [p.strip() for p in colour[colour.index("(") + 1 : -1].split(",")]
    alpha = float(parts[3]) if len(parts) == 4 else 1.0
    return float(parts[0]), float(parts[1]), float(parts[2]), alpha


def _over(top: tuple[float, ...], under: tuple[float, float, float]) -> tuple[float, float, float]:
    r, g, b, a = top
    return (r * a + under[0] * (1 - a), g * a + under[1] * (1 - a), b * a + under[2] * (1 - a))


def _luminance(rgb: tuple[float, float, float]) -> float:
    def channel(value: float) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(text: str, ground: str, behind: tuple[str, ...] = ("#000", "#fff")) -> float:
    """The WCAG contrast ratio of `text` on `ground`; a ground with transparency is laid
    over each colour `behind` it, and the worst counts."""
    worst = 21.0
    for under in behind:
        base = _over(_rgba(under), (0.0, 0.0, 0.0))
        back = _over(_rgba(ground), base)
        fore = _over(_rgba(text), back)
        lighter, darker = sorted((_luminance(fore), _luminance(back)), reverse=True)
        worst = min(worst, (lighter + 0.05) / (darker + 0.05))
    return worst


def _background(declarations: dict[str, str], variables: dict[str, str]) -> str | None:
    own = declarations.get("background-color") or declarations.get("background")
    return _resolve(own, variables) if own else None


def _ancestor_ground(
    selector: str,
    rules: list[tuple[str, dict[str, str]]],
    variables: dict[str, str],
    containers: dict[str, str],
) -> str | None:
    """The background of the nearest rule whose selector is a leading part of this one's
    (".bar .muted" sits on what ".bar" paints), or of the element it sits inside."""
    parts = selector.split()
    first = re.split(r"[\[:]", parts[0])[0]
    if first in containers:
        parts = [containers[first], *parts]
    for end in range(len(parts) - 1, 0, -1):
        prefix = " ".join(parts[:end])
        for other, declarations in rules:
            if prefix in [s.strip() for s in other.split(",")]:
                painted = _background(declarations, variables)
                if painted is not None:
                    return painted
    return None


Pair = tuple[str, str, str, str, tuple[str, ...]]


def pairs() -> list[Pair]:
    """(sheet, selector, text colour, ground colour, what the ground may lie over) for every
    rule that sets a text colour."""
    found = []
    for sheet in sorted(STATIC.glob("*.css")):
        variables = _variables(sheet)
        containers = CONTAINERS.get(sheet.name, {})
        rules = _rules(sheet.read_text())
        grounds = [_resolve(f"var({name})", variables) for name in GROUNDS[sheet.name]]
        for selector, declarations in rules:
            if "color" not in declarations or selector.startswith("@"):
                continue
            text = _resolve(declarations["color"], variables)
            if text is None:
                continue
            for one in selector.split(","):
                one = one.strip()
                own = _background(declarations, variables) or _ancestor_ground(
                    one, rules, variables, containers
                )
                # a ground of its own lies over the page's; the page's over anything
                for ground in [own] if own else grounds:
                    assert ground is not None
                    behind = tuple(g for g in grounds if g) if own else ("#000", "#fff")
                    found.append((sheet.name, one, text, ground, behind))
        found.extend(_placed(sheet.name, rules, variables, containers))
    return found


def _placed(
    sheet: str,
    rules: list[tuple[str, dict[str, str]]],
    variables: dict[str, str],
    containers: dict[str, str],
) -> list[Pair]:
    """base.css's colours where a sheet's page draws them inside its containers (PLACED)."""
    found = []
    own = {s.strip() for selector, _ in rules for s in selector.split(",")}
    for container, classes in PLACED.get(sheet, {}).items():
        for selector, declarations in _rules((STATIC / "base.css").read_text()):
            text = _resolve(declarations.get("color", ""), variables)
            for one in (s.strip() for s in selector.split(",")):
                placed = f"{container} {one}"
                if text is None or not classes.fullmatch(one) or placed in own:
                    continue  # the sheet colours it there itself: read with its own rules
                ground = _ancestor_ground(placed, rules, variables, containers)
                assert ground is not None, f"{sheet} {placed}: no ground"
                found.append((sheet, placed, text, ground, ("#000", "#fff")))
    return found


def test_the_stylesheets_are_read() -> None:
    read = pairs()
    assert len(read) > 40
    assert {pair[0] for pair in read} >= set(GROUNDS) - {"base.css"}


def test_contrast_is_measured_as_wcag_does() -> None:
    assert round(contrast("#000", "#fff"), 1) == 21.0
    assert round(contrast("#767676", "#fff"), 2) == 4.54  # the lightest grey AA allows
    assert contrast("#b36b00", "#fff") < 4.5  # the old "stale" orange: too light for text


@pytest.mark.parametrize(("sheet", "selector", "text", "ground", "behind"), pairs())
def test_every_text_colour_reads_on_its_ground(
    sheet: str, selector: str, text: str, ground: str, behind: tuple[str, ...]
) -> None:
    least = 3.0 if sheet in LARGE_TEXT_SHEETS else 4.5
    ratio = contrast(text, ground, behind)
    assert ratio >= least, f"{sheet} {selector}: {text} on {ground} is {ratio:.2f}:1"
