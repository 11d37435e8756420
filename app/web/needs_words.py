"""What a player needs (app/read/needs.py) in words, as every page says it: the player's page
(a sentence), the hall's cut page and the overlay's bubble (a short form). The server draws the
first frame with these; app/static/needs.js says the same from the live feed, word for word
(tests/unit/test_needs_words.py holds the two to that).

At an Ari Ari table the hands are a tsumo and a ron and the values points with thousands
separators (rule AA-22); at a WSOM table a self-draw and a discard win, in hand values (HS-2).
"""

from __future__ import annotations

from app import i18n
from app.domain.ariari import points_shown
from app.read.needs import NeedsView

SEPARATOR = " \u00b7 "


def _value(value: int, ariari: bool) -> str:
    return points_shown(value) if ariari else str(value)


def _kind(limit: int | None) -> str:
    """A loss a player can take: none ("", safe against it), 0 (even the smallest drops
    them: "any") or up to a value ("more" than it drops them)."""
    return "" if limit is None else "any" if limit == 0 else "more"


def needs_sentence(
    view: NeedsView | None, ariari: bool = False, language: str | None = None
) -> str:
    """The player's page: what the next hand must be, or what it may not be; "" when the
    player has no hand left (their segment is over) or the round has no cut. In `language`
    when given (the hall's second), else the page's (needs.js takes a `t` instead)."""
    if view is None:
        return ""
    if language is not None:
        with i18n.speaking(language):
            return needs_sentence(view, ariari)
    _ = i18n.gettext
    verdict = view["needs"]
    if verdict == "out of reach":
        return _("Out of reach with one hand")
    if verdict == "can reach":
        self_draw, discard = view["self_draw"], view["discard"]
        words = {
            "self_draw": None if self_draw is None else _value(self_draw, ariari),
            "discard": None if discard is None else _value(discard, ariari),
        }
        if ariari:
            if self_draw is not None and discard is not None:
                return _("Needs a tsumo of {self_draw} or a ron of {discard}").format(**words)
            if self_draw is not None:
                return _("Needs a tsumo of {self_draw}").format(**words)
            return _("Needs a ron of {discard}").format(**words)
        if self_draw is not None and discard is not None:
            return _("Needs a self-draw of {self_draw} or a discard win of {discard}").format(
                **words
            )
        if self_draw is not None:
            return _("Needs a self-draw of {self_draw}").format(**words)
        return _("Needs a discard win of {discard}").format(**words)
    if verdict == "over the line":
        lose_self_draw, lose_discard = view["lose_self_draw"], view["lose_discard"]
        if lose_self_draw is None and lose_discard is None:
            return _("Safe against any one hand")
        words = {
            "self_draw": None if lose_self_draw is None else _value(lose_self_draw, ariari),
            "discard": None if lose_discard is None else _value(lose_discard, ariari),
        }
        # 0: even the smallest such hand drops them (rule HS-3), said without a number
        kinds = (_kind(lose_self_draw), _kind(lose_discard))
        sentences = {
            ("more", "more"): _(
                "Through unless an opponent self-draws more than {self_draw} "
                "or they deal in more than {discard}"
            ),
            ("more", ""): _("Through unless an opponent self-draws more than {self_draw}"),
            ("", "more"): _("Through unless they deal in more than {discard}"),
            ("any", "any"): _("Through unless an opponent self-draws or they deal in"),
            ("any", ""): _("Through unless an opponent self-draws"),
            ("", "any"): _("Through unless they deal in"),
            ("any", "more"): _(
                "Through unless an opponent self-draws or they deal in more than {discard}"
            ),
            ("more", "any"): _(
                "Through unless an opponent self-draws more than {self_draw} or they deal in"
            ),
        }
        return sentences[kinds].format(**words)
    return ""


def needs_short(view: NeedsView | None, ariari: bool = False, language: str | None = None) -> str:
    """The hall's cut page and the overlay's bubble: the same in a few words, in `language`
    when given."""
    if view is None:
        return ""
    if language is not None:
        with i18n.speaking(language):
            return needs_short(view, ariari)
    _ = i18n.gettext
    verdict = view["needs"]
    if verdict == "out of reach":
        return _("out of reach")
    parts: list[str] = []
    if verdict == "can reach":
        if view["self_draw"] is not None:
            value = _value(view["self_draw"], ariari)
            parts.append(
                (_("{value} tsumo") if ariari else _("{value} self-draw")).format(value=value)
            )
        if view["discard"] is not None:
            value = _value(view["discard"], ariari)
            parts.append((_("{value} ron") if ariari else _("{value} discard")).format(value=value))
        return SEPARATOR.join(parts)
    if verdict == "over the line":
        # A loss they can take up to a value ("safe to 45 self-draw"), and the kinds of which
        # even the smallest hand drops them (0, rule HS-3): short enough for a TV caption.
        lose_self_draw, lose_discard = view["lose_self_draw"], view["lose_discard"]
        if lose_self_draw == 0 and lose_discard == 0:
            return _("any loss drops them")
        if lose_self_draw == 0 and lose_discard is None:
            return _("any tsumo drops them") if ariari else _("any self-draw drops them")
        if lose_discard == 0 and lose_self_draw is None:
            return _("any deal-in drops them")
        if lose_self_draw:
            value = _value(lose_self_draw, ariari)
            parts.append(
                (_("{value} tsumo") if ariari else _("{value} self-draw")).format(value=value)
            )
        if lose_discard:
            parts.append(_("{value} deal-in").format(value=_value(lose_discard, ariari)))
        if not parts:
            return _("safe")
        said = [_("safe to {limits}").format(limits=SEPARATOR.join(parts))]
        if lose_self_draw == 0:
            said.append(_("no tsumo") if ariari else _("no self-draw"))
        if lose_discard == 0:
            said.append(_("no deal-in"))
        return SEPARATOR.join(said)
    return ""
