// @ts-check
// The page's language (issue 17). Its scripts' strings come from the server's gettext
// catalogs, embedded in the page (<script id="catalog">, base.html) so that a page kept
// offline keeps its language. A string the catalog lacks shows in English. Outside a page
// (the modules' unit tests under Node) it speaks English.

const page = typeof document !== "undefined" ? document : null;

/** @type {{ messages?: Record<string, string | string[]> }} */
const catalog = (() => {
  try {
    return JSON.parse(page?.getElementById("catalog")?.textContent || "{}");
  } catch {
    return {};
  }
})();
const messages = catalog.messages || {};

/** The page's language ("ja", "zh-Hant"); the pseudo-locale en-XA formats as English. */
export const language = page?.documentElement.lang || "en";
const formatting = language === "en-XA" ? "en" : language;

/**
 * @param {string} text
 * @param {Record<string, string | number>} [values]
 */
function fill(text, values = {}) {
  return text.replace(/\{([a-z_0-9]+)\}/g, (whole, name) =>
    name in values ? String(values[name]) : whole,
  );
}

/**
 * The translation of `message`: t("Table {table}", { table: 4 }).
 * @param {string} message
 * @param {Record<string, string | number>} [values]
 */
export function t(message, values) {
  const found = messages[message];
  return fill(typeof found === "string" ? found : message, values);
}

const plurals = new Intl.PluralRules(formatting);

/**
 * The form for `count`: English has two, Japanese, Chinese and Korean one.
 * @param {string} singular
 * @param {string} plural
 * @param {number} count
 * @param {Record<string, string | number>} [values]
 */
export function tn(singular, plural, count, values) {
  const found = messages[singular];
  const all = { count: formatNumber(count), ...values };
  if (Array.isArray(found) && found.length) {
    return fill(found[plurals.select(count) === "one" ? 0 : found.length - 1], all);
  }
  return fill(count === 1 ? singular : plural, all);
}

// Readers of these languages read a name in its owner's script first (i18n.names_for).
const OWN_SCRIPT_FIRST = new Set(["ja", "zh-Hant", "zh-Hans", "ko"]);

/**
 * A player's name as a reader of `lang` reads it first, and the other form (or null).
 * @param {string} name the Latin name
 * @param {string | null | undefined} localName the name in its owner's script
 * @param {string} [lang] the page's language unless another is named (the hall's second)
 * @returns {[string, string | null]}
 */
export function namesFor(name, localName, lang = language) {
  const local = localName || null;
  return local && OWN_SCRIPT_FIRST.has(lang) ? [local, name] : [name, local];
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
  // a hall's clocks: 24 hours
  return new Intl.DateTimeFormat(formatting, { hourCycle: "h23", ...options }).format(when);
}

// A page opened with ?lang= (a QR code, a shared link) keeps that language as the reader
// follows its links: the parameter rides along to every page of this site, except to the
// language switch, which is the reader's own new choice.
const asked = page ? new URLSearchParams(location.search).get("lang") : null;
if (page && asked) {
  page.addEventListener("click", (event) => {
    const link = event.target instanceof Element ? event.target.closest("a[href]") : null;
    if (!(link instanceof HTMLAnchorElement) || link.origin !== location.origin) return;
    const url = new URL(link.href);
    if (url.pathname === "/language" || url.searchParams.has("lang")) return;
    url.searchParams.set("lang", asked);
    link.href = url.href;
  });
}

// The page's requests carry its ?lang=, which outranks the kept choice on the server too.
/** @param {string} path */
export const spoken = (path) =>
  !asked || /[?&]lang=/.test(path)
    ? path
    : `${path}${path.includes("?") ? "&" : "?"}lang=${encodeURIComponent(asked)}`;
export const SPOKEN_HEADERS = Object.freeze({ "Accept-Language": language });
