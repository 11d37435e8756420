// @ts-check
// What a player needs (app/read/needs.py) in words: app/web/needs_words.py's twin, word for
// word, so a page the server drew and the same page kept live by the feed say the same
// (tests/unit/test_needs_words.py runs both). At an Ari Ari table the hands are a tsumo and a
// ron and the values points (rule AA-22); at a WSOM table a self-draw and a discard win (HS-2).

import { t } from "./i18n.js";
import { pointsShown } from "./live.js";

const SEPARATOR = " \u00b7 ";

/**
 * @typedef {{ table: number | null, hands_left: number | null, needs: string,
 *   self_draw: number | null, discard: number | null,
 *   lose_self_draw: number | null, lose_discard: number | null }} NeedsView
 */

/** @param {number} value @param {boolean} ariari */
function shown(value, ariari) {
  return ariari ? pointsShown(String(value)) : String(value);
}

/**
 * The player's page: what the next hand must be, or what it may not be ("" when none).
 * @param {NeedsView | null | undefined} view
 * @param {boolean} [ariari]
 */
export function needsSentence(view, ariari = false) {
  if (!view) return "";
  if (view.needs === "out of reach") return t("Out of reach with one hand");
  if (view.needs === "can reach") {
    const hasSelfDraw = view.self_draw !== null;
    const hasDiscard = view.discard !== null;
    const words = {
      self_draw: hasSelfDraw ? shown(/** @type {number} */ (view.self_draw), ariari) : "",
      discard: hasDiscard ? shown(/** @type {number} */ (view.discard), ariari) : "",
    };
    if (ariari) {
      if (hasSelfDraw && hasDiscard) return t("Needs a tsumo of {self_draw} or a ron of {discard}", words);
      if (hasSelfDraw) return t("Needs a tsumo of {self_draw}", words);
      return t("Needs a ron of {discard}", words);
    }
    if (hasSelfDraw && hasDiscard) return t("Needs a self-draw of {self_draw} or a discard win of {discard}", words);
    if (hasSelfDraw) return t("Needs a self-draw of {self_draw}", words);
    return t("Needs a discard win of {discard}", words);
  }
  if (view.needs === "over the line") {
    const hasSelfDraw = view.lose_self_draw !== null;
    const hasDiscard = view.lose_discard !== null;
    if (!hasSelfDraw && !hasDiscard) return t("Safe against any one hand");
    const words = {
      self_draw: hasSelfDraw ? shown(/** @type {number} */ (view.lose_self_draw), ariari) : "",
      discard: hasDiscard ? shown(/** @type {number} */ (view.lose_discard), ariari) : "",
    };
    if (hasSelfDraw && hasDiscard) {
      return t("Through unless an opponent self-draws more than {self_draw} or they deal in more than {discard}", words);
    }
    if (hasSelfDraw) return t("Through unless an opponent self-draws more than {self_draw}", words);
    return t("Through unless they deal in more than {discard}", words);
  }
  return "";
}

/**
 * The hall's cut page and the overlay's bubble: the same in a few words.
 * @param {NeedsView | null | undefined} view
 * @param {boolean} [ariari]
 */
export function needsShort(view, ariari = false) {
  if (!view) return "";
  if (view.needs === "out of reach") return t("out of reach");
  /** @type {string[]} */
  const parts = [];
  /** @param {number | null} value */
  const selfDraw = (value) => {
    if (value !== null) parts.push(ariari ? t("{value} tsumo", { value: shown(value, true) }) : t("{value} self-draw", { value: shown(value, false) }));
  };
  if (view.needs === "can reach") {
    selfDraw(view.self_draw);
    if (view.discard !== null) {
      const value = shown(view.discard, ariari);
      parts.push(ariari ? t("{value} ron", { value }) : t("{value} discard", { value }));
    }
    return parts.join(SEPARATOR);
  }
  if (view.needs === "over the line") {
    selfDraw(view.lose_self_draw);
    if (view.lose_discard !== null) parts.push(t("{value} deal-in", { value: shown(view.lose_discard, ariari) }));
    if (!parts.length) return t("safe");
    return t("safe to {limits}", { limits: parts.join(SEPARATOR) });
  }
  return "";
}
