// @ts-check
// The page's language (issue 17): the strings of its JavaScript come from the same gettext
// catalogs as the server's, embedded in the page as JSON (<script id="catalog">, written by
// base.html), so a page kept offline by its service worker keeps its language too.
//
// t("Table {table}", { table: 4 }) gives the translation with its placeholders filled;
// a string the catalog lacks shows in English. Numbers and times use the browser's Intl
// with the page's language.

/** @type {{ language?: string, messages?: Record<string, string | string[]> }} */
const catalog = (() => {
  const element = typeof document !== "undefined" ? document.getElementById("catalog") : null;
  try {
    return element ? JSON.parse(element.textContent || "{}") : {};
  } catch {
    return {};
  }
})();

const messages = catalog.messages || {};

/** The page's language, a BCP 47 tag ("ja", "zh-Hant"); the pseudo-locale formats as English. */
export const language =
  (typeof document !== "undefined" && document.documentElement.lang) || "en";
const formatting = language === "en-XA" ? "en" : language;

/**
 * @param {string} text
 * @param {Record<string, string | number>} [values]
 */
function fill(text, values) {
  if (!values) return text;
  return text.replace(/\{([a-z_0-9]+)\}/g, (whole, name) =>
    name in values ? String(values[name]) : whole,
  );
}

/**
 * The translation of `message`, with `{name}` placeholders filled from `values`.
 * @param {string} message
 * @param {Record<string, string | number>} [values]
 */
export function t(message, values) {
  const found = messages[message];
  return fill(typeof found === "string" ? found : message, values);
}

const plurals = new Intl.PluralRules(formatting);

/**
 * The form for `count` (English's one/other; one form in Japanese, Chinese and Korean).
 * @param {string} singular
 * @param {string} plural
 * @param {number} count
 * @param {Record<string, string | number>} [values] `count` is there already
 */
export function tn(singular, plural, count, values) {
  const found = messages[singular];
  const all = { count: formatNumber(count), ...values };
  if (Array.isArray(found) && found.length) {
    const index = plurals.select(count) === "one" ? 0 : found.length - 1;
    return fill(found[Math.min(index, found.length - 1)], all);
  }
  return fill(count === 1 ? singular : plural, all);
}

/**
 * @param {number} value
 * @param {Intl.NumberFormatOptions} [options]
 */
export function formatNumber(value, options) {
  return new Intl.NumberFormat(formatting, options).format(value);
}

/**
 * @param {Date | number} when
 * @param {Intl.DateTimeFormatOptions} [options]
 */
export function formatTime(when, options = { hour: "2-digit", minute: "2-digit" }) {
  return new Intl.DateTimeFormat(formatting, options).format(when);
}
