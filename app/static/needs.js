// @ts-check
// What a player needs (app/read/needs.py) in words: app/web/needs_words.py's twin, word for
// word (tests/unit/test_needs_words.py runs both). Ari Ari: a tsumo and a ron, in points
// (rule AA-22); WSOM: a self-draw and a discard win (HS-2).

// `t` is a parameter below, so that the catalogs' extraction (t() calls) finds every string
import { t as pageT } from "./i18n.js";
import { pointsShown } from "./live.js";

const SEPARATOR = " \u00b7 ";

/** @typedef {{ needs: string, self_draw: number | null, discard: number | null, lose_self_draw: number | null, lose_discard: number | null }} NeedsView */

/** @param {number | null} value @param {boolean} ariari */
const shown = (value, ariari) => (value === null ? "" : ariari ? pointsShown(String(value)) : String(value));

/**
 * The player's page: what the next hand must be, or may not be ("" when none).
 * @param {NeedsView | null | undefined} view
 * @param {boolean} [ariari]
 * @param {typeof pageT} [t] the language to say it in: the page's, or the hall's second
 */
export function needsSentence(view, ariari = false, t = pageT) {
  if (!view) return "";
  if (view.needs === "out of reach") return t("Out of reach with one hand");
  if (view.needs === "can reach") {
    const words = { self_draw: shown(view.self_draw, ariari), discard: shown(view.discard, ariari) };
    const both = view.self_draw !== null && view.discard !== null;
    if (ariari) {
      if (both) return t("Needs a tsumo of {self_draw} or a ron of {discard}", words);
      return view.self_draw !== null ? t("Needs a tsumo of {self_draw}", words) : t("Needs a ron of {discard}", words);
    }
    if (both) return t("Needs a self-draw of {self_draw} or a discard win of {discard}", words);
    return view.self_draw !== null ? t("Needs a self-draw of {self_draw}", words) : t("Needs a discard win of {discard}", words);
  }
  if (view.needs === "over the line") {
    const words = { self_draw: shown(view.lose_self_draw, ariari), discard: shown(view.lose_discard, ariari) };
    if (view.lose_self_draw === null && view.lose_discard === null) return t("Safe against any one hand");
    // 0: even the smallest such hand drops them (rule HS-3), said without a number
    /** @param {number | null} value */
    const kind = (value) => (value === null ? "" : value === 0 ? "any" : "more");
    const sentences = {
      "more more": () => t("Through unless an opponent self-draws more than {self_draw} or they deal in more than {discard}", words),
      "more ": () => t("Through unless an opponent self-draws more than {self_draw}", words),
      " more": () => t("Through unless they deal in more than {discard}", words),
      "any any": () => t("Through unless an opponent self-draws or they deal in", words),
      "any ": () => t("Through unless an opponent self-draws", words),
      " any": () => t("Through unless they deal in", words),
      "any more": () => t("Through unless an opponent self-draws or they deal in more than {discard}", words),
      "more any": () => t("Through unless an opponent self-draws more than {self_draw} or they deal in", words),
    };
    return sentences[/** @type {keyof typeof sentences} */ (`${kind(view.lose_self_draw)} ${kind(view.lose_discard)}`)]();
  }
  return "";
}

/**
 * The hall's cut page and the overlay's bubble: the same in a few words.
 * @param {NeedsView | null | undefined} view
 * @param {boolean} [ariari]
 * @param {typeof pageT} [t] the language to say it in: the page's, or the hall's second
 */
export function needsShort(view, ariari = false, t = pageT) {
  if (!view) return "";
  if (view.needs === "out of reach") return t("out of reach");
  const parts = [];
  if (view.needs === "can reach") {
    if (view.self_draw !== null) {
      const value = shown(view.self_draw, ariari);
      parts.push(ariari ? t("{value} tsumo", { value }) : t("{value} self-draw", { value }));
    }
    if (view.discard !== null) {
      const value = shown(view.discard, ariari);
      parts.push(ariari ? t("{value} ron", { value }) : t("{value} discard", { value }));
    }
    return parts.join(SEPARATOR);
  }
  if (view.needs !== "over the line") return "";
  // A loss they can take up to a value ("safe to 45 self-draw"), and the kinds of which even
  // the smallest hand drops them (0, rule HS-3): short enough for a TV caption.
  const { lose_self_draw: selfDraw, lose_discard: discard } = view;
  if (selfDraw === 0 && discard === 0) return t("any loss drops them");
  if (selfDraw === 0 && discard === null) return ariari ? t("any tsumo drops them") : t("any self-draw drops them");
  if (discard === 0 && selfDraw === null) return t("any deal-in drops them");
  if (selfDraw) {
    const value = shown(selfDraw, ariari);
    parts.push(ariari ? t("{value} tsumo", { value }) : t("{value} self-draw", { value }));
  }
  if (discard) parts.push(t("{value} deal-in", { value: shown(discard, ariari) }));
  if (!parts.length) return t("safe");
  const said = [t("safe to {limits}", { limits: parts.join(SEPARATOR) })];
  if (selfDraw === 0) said.push(ariari ? t("no tsumo") : t("no self-draw"));
  if (discard === 0) said.push(t("no deal-in"));
  return said.join(SEPARATOR);
}
