// @ts-check
// What a player needs (app/read/needs.py) in words: app/web/needs_words.py's twin, word for
// word (tests/unit/test_needs_words.py runs both). Ari Ari: a tsumo and a ron, in points
// (rule AA-22); WSOM: a self-draw and a discard win (HS-2).

import { t } from "./i18n.js";
import { pointsShown } from "./live.js";

const SEPARATOR = " \u00b7 ";

/** @typedef {{ needs: string, self_draw: number | null, discard: number | null, lose_self_draw: number | null, lose_discard: number | null }} NeedsView */

/** @param {number | null} value @param {boolean} ariari */
const shown = (value, ariari) => (value === null ? "" : ariari ? pointsShown(String(value)) : String(value));

/**
 * The player's page: what the next hand must be, or may not be ("" when none).
 * @param {NeedsView | null | undefined} view
 * @param {boolean} [ariari]
 * @param {typeof t} [say] the language to say it in: the page's, or the hall's second
 */
export function needsSentence(view, ariari = false, say = t) {
  if (!view) return "";
  if (view.needs === "out of reach") return say("Out of reach with one hand");
  if (view.needs === "can reach") {
    const words = { self_draw: shown(view.self_draw, ariari), discard: shown(view.discard, ariari) };
    const both = view.self_draw !== null && view.discard !== null;
    if (ariari) {
      if (both) return say("Needs a tsumo of {self_draw} or a ron of {discard}", words);
      return view.self_draw !== null ? say("Needs a tsumo of {self_draw}", words) : say("Needs a ron of {discard}", words);
    }
    if (both) return say("Needs a self-draw of {self_draw} or a discard win of {discard}", words);
    return view.self_draw !== null ? say("Needs a self-draw of {self_draw}", words) : say("Needs a discard win of {discard}", words);
  }
  if (view.needs === "over the line") {
    const words = { self_draw: shown(view.lose_self_draw, ariari), discard: shown(view.lose_discard, ariari) };
    if (view.lose_self_draw === null && view.lose_discard === null) return say("Safe against any one hand");
    if (view.lose_self_draw !== null && view.lose_discard !== null) {
      return say("Through unless an opponent self-draws more than {self_draw} or they deal in more than {discard}", words);
    }
    if (view.lose_self_draw !== null) return say("Through unless an opponent self-draws more than {self_draw}", words);
    return say("Through unless they deal in more than {discard}", words);
  }
  return "";
}

/**
 * The hall's cut page and the overlay's bubble: the same in a few words.
 * @param {NeedsView | null | undefined} view
 * @param {boolean} [ariari]
 * @param {typeof t} [say] the language to say it in: the page's, or the hall's second
 */
export function needsShort(view, ariari = false, say = t) {
  if (!view) return "";
  if (view.needs === "out of reach") return say("out of reach");
  const parts = [];
  const [selfDraw, discard] = view.needs === "can reach" ? [view.self_draw, view.discard] : [view.lose_self_draw, view.lose_discard];
  if (selfDraw !== null) {
    const value = shown(selfDraw, ariari);
    parts.push(ariari ? say("{value} tsumo", { value }) : say("{value} self-draw", { value }));
  }
  if (discard !== null) {
    const value = shown(discard, ariari);
    if (view.needs !== "can reach") parts.push(say("{value} deal-in", { value }));
    else parts.push(ariari ? say("{value} ron", { value }) : say("{value} discard", { value }));
  }
  if (view.needs === "can reach") return parts.join(SEPARATOR);
  if (view.needs !== "over the line") return "";
  return parts.length ? say("safe to {limits}", { limits: parts.join(SEPARATOR) }) : say("safe");
}
