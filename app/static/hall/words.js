// @ts-check
// The hall's languages (issue 17). A hall in Macau is read in two languages at once: with
// `?second=zh-Hant` the page has a second catalog (<script id="catalog-second">, hall.py)
// and two speakers, the page's own and the second. A phrase is written once, as a function
// of a speaker (`({ t }) => t("Rank")`), so that the catalogs' extraction finds its `t()` and
// either speaker can say it.

import { language, t, tn } from "../i18n.js";

/**
 * @typedef {object} Speaker
 * @property {string} lang the BCP 47 tag of its language
 * @property {(message: string, values?: Record<string, string | number>) => string} t
 * @property {(singular: string, plural: string, count: number,
 *   values?: Record<string, string | number>) => string} tn
 */

/** @type {Speaker} */
export const FIRST = { lang: language, t, tn };

/**
 * @param {string} text
 * @param {Record<string, string | number>} values
 */
function fill(text, values) {
  return text.replace(/\{([a-z_0-9]+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

/**
 * A speaker of a catalog embedded in the page (the same form as static/i18n.js reads).
 * @param {{ language: string, messages?: Record<string, string | string[]> }} catalog
 * @returns {Speaker}
 */
export function speakerOf(catalog) {
  const messages = catalog.messages || {};
  const formatting = catalog.language === "en-XA" ? "en" : catalog.language;
  const plurals = new Intl.PluralRules(formatting);
  const numbers = new Intl.NumberFormat(formatting);
  return {
    lang: catalog.language,
    t(message, values = {}) {
      const found = messages[message];
      return fill(typeof found === "string" ? found : message, values);
    },
    tn(singular, plural, count, values = {}) {
      const found = messages[singular];
      const all = { count: numbers.format(count), ...values };
      if (Array.isArray(found) && found.length) {
        return fill(found[plurals.select(count) === "one" ? 0 : found.length - 1], all);
      }
      return fill(count === 1 ? singular : plural, all);
    },
  };
}

/** The second language's speaker, or null when the page has one language. */
export function secondSpeaker() {
  const script = typeof document !== "undefined" ? document.getElementById("catalog-second") : null;
  if (!script) return null;
  try {
    const catalog = JSON.parse(script.textContent || "{}");
    return typeof catalog.language === "string" ? speakerOf(catalog) : null;
  } catch {
    return null;
  }
}
