// @ts-check
// The hall display (issue 6): standings paged by screen with the cut line, the session clock
// and every table's state, readable from across the hall and left running for hours.
//
// URL parameters: rows (per page; by default as many as fit the screen), interval (seconds
// per page), page (a number or "cut" pins one page), arrows (seconds a rank-change arrow
// takes to fade); lang (the page's language), second (a second language: the headings and
// column heads in both, the second beneath) and bilingual=alternate (whole pages in each
// language in turn instead), issue 17.
// The cut page has a column more (issue 18): what each player near the line needs from the
// next hand at their table, in a few words, from the `needs` channel (4 places each side of
// the line; the other rows' cells are blank).
// story=1 puts a page more in the rotation, the story of the session (issue 18, part 2:
// hall/story.js draws it from the `stats` channel, followed only then); page=story pins it.
// The screen decides the sizes (issue 13): a page's rows share the height left, whatever
// their number, so no row is ever below the screen and page n+1 starts where page n ended;
// the row's font shrinks further only to keep the name column readable.
// Everything is redrawn from the feed's states: a page replaces its rows, never appends, so
// the document stays the same size however long it runs. LiveFeed reconnects and resumes.
// Player names are data: they only ever reach the page through textContent, marked
// translate="no", in their own script first for a reader of Japanese, Chinese or Korean.

import { formatTime, namesFor } from "/static/i18n.js";
import { LiveFeed, formatClock, pointsShown, secondsLeft } from "/static/live.js";
import { handCount, sameDeadline, segmentKindOf, sessionClock } from "/static/hall/session.js";
import { FIRST, secondSpeaker } from "/static/hall/words.js";
import { needsShort } from "/static/needs.js";
import { storyPage } from "/static/hall/story.js";

const root = document.getElementById("hall");
const tournamentId = Number(root.dataset.tournament);
const segmentKinds = JSON.parse(root.dataset.segmentKinds || "{}");
const groupedRounds = new Set(JSON.parse(root.dataset.groupedRounds || "[]"));
const rounds = { segmentKinds, groupedRounds };
const ARIARI = root.dataset.ruleset === "ariari";

const params = new URLSearchParams(location.search);
const ROWS_ASKED = params.has("rows") ? intParam("rows", 16, 5, 200) : null;
const INTERVAL_MS = intParam("interval", 10, 2, 3600) * 1000;
const ARROW_MS = intParam("arrows", 90, 5, 3600) * 1000;
const PINNED = pinnedPage(params.get("page"));
const STORY = PINNED === "story" || (params.has("story") && params.get("story") !== "0");
const SECOND = secondSpeaker();
// alternate: each turn of the rotation in the other language; else the second beneath
const ALTERNATE = SECOND !== null && params.get("bilingual") === "alternate";
// One pixel of the 1920x1080 design (hall.css, --u); a screen on its side is 1080 wide.
const DESIGN = { landscape: [1920, 1080], portrait: [1080, 1920] };
const DEFAULT_ROW_U = 50; // the height a row gets by default: 16 rows on a 16:9 screen
const ROW_FONT = 0.6; // of the row's height
const BAND_ROWS = 1.3 + 2 * 0.08; // the cut band and its margins, in rows (hall.css)
const NAME_MIN_EM = 8; // the name column keeps at least 8 characters of the row's font
// Table numbers readable from 10 m: digits 4.4% of the screen's height (README)
const TABLE_NUMBER_MIN = 0.06; // the number's font, of the screen's short side
const NUMBER_OF_CELL = { full: 0.6, compact: 0.72 }; // hall.css: .t-num, of its cell's height
const DIGIT_EM = 0.72; // the width of a bold digit, generously
const NAMES_RETRY_MS = 30000;
const MINUS = "\u2212"; // a negative figure's sign on the screen (the feeds keep ASCII's "-")
// The side of the cut line a distance is on, in a shape as well as a colour (README, Access);
// a narrow no-break space keeps the shape with its figure.
const SIDE = { above: "\u25b2\u202f", below: "\u25bc\u202f" };

const el = {
  rows: document.getElementById("rows"),
  standings: document.querySelector(".hall-standings"),
  nameHeader: document.querySelector(".hall-columns .col-name"),
  needsHeader: /** @type {HTMLElement} */ (document.querySelector(".hall-columns .col-needs")),
  pager: document.getElementById("pager"),
  round: document.getElementById("round-label"),
  badge: document.getElementById("badge"),
  updated: document.getElementById("updated"),
  fullscreen: document.getElementById("fullscreen"),
  session: document.getElementById("session"),
  sessionLabel: document.getElementById("session-label"),
  sessionTime: document.getElementById("session-time"),
  sessionNote: document.getElementById("session-note"),
  cut: document.getElementById("cut-info"),
  tables: document.getElementById("tables"),
  tablesLabel: document.getElementById("tables-label"),
  tableCounts: document.getElementById("table-counts"),
  columns: document.querySelector(".hall-columns"),
  languages: document.getElementById("languages"),
  story: document.getElementById("story"),
};

let names = new Map(); // player id -> {name, country, local_name, local_lang}
let namesFetchedAt = 0;
let previousRanks = null; // {round, ranks: Map(player -> rank)} of the last standings state
const arrows = new Map(); // player -> {up, at}: rank changes still fading
let rotation = 0; // index into the pages of the rotation
let tableRotation = 0; // index into the grids of tables, when they do not fit on one
let rowsPerPage = ROWS_ASKED ?? 16; // set by layout()
let rowHeight = 0; // px, set by layout()
let tickingCells = []; // [{node, row}]: table cells that count down a deadline of their own
let turn = 0; // the rotation's turns: with bilingual=alternate, even ones in the first language

// -- languages (issue 17) --------------------------------------------------------------------

/** @typedef {import("/static/hall/words.js").Speaker} Speaker */

let spoken = FIRST; // the language the page speaks now: with alternate, set by the turn

function speaker() {
  return spoken;
}

// With an even number of pages, a page would come back in the same language every time:
// the languages then shift by one each time round.
function languageTurn() {
  if (PINNED !== null) return turn;
  const count = pagesOf(orderedRows(feed.states.get("standings")).length, cutOfState()).pages.length;
  return count % 2 === 0 ? turn + Math.floor(turn / count) : turn;
}

function cutOfState() {
  const state = feed.states.get("standings");
  return cutOf(state, Object.keys(state?.rows ?? {}).length);
}

const t = (message, values) => speaker().t(message, values);
const tn = (singular, plural, count, values) => speaker().tn(singular, plural, count, values);

/**
 * A heading in the page's language, and with `?second=` the second language beneath it.
 * @param {Element} target
 * @param {(speaker: Speaker) => string} phrase
 */
function label(target, phrase) {
  const now = speaker();
  if (!SECOND || ALTERNATE) {
    if (target.textContent !== phrase(now)) target.textContent = phrase(now);
    return;
  }
  const second = node("span", "second", phrase(SECOND));
  second.lang = SECOND.lang;
  target.replaceChildren(document.createTextNode(phrase(FIRST)), second);
}

function phaseWord(phase) {
  const words = {
    not_started: t("waiting"),
    running: t("playing"),
    overtime: t("overtime"),
    finished_short: t("short"),
    finished: t("done"),
    break: t("break"),
  };
  return words[phase] ?? phase;
}

// "4 playing · 12 done": one message for each, the number where each language puts it.
function phaseCount(phase, count) {
  const values = { count };
  const words = {
    not_started: t("{count} waiting", values),
    running: t("{count} playing", values),
    overtime: t("{count} in overtime", values),
    finished_short: t("{count} short", values),
    finished: t("{count} done", values),
    break: t("{count} on a break", values),
  };
  return words[phase] ?? `${count} ${phase}`;
}
const PHASES = ["not_started", "running", "overtime", "finished_short", "finished", "break"];

// The column heads and the fixed words: drawn again when the language turns.
function renderHeads() {
  const now = speaker();
  root.lang = now.lang;
  const heads = el.columns;
  label(heads.querySelector(".col-rank"), ({ t }) => t("Rank"));
  label(heads.querySelector(".col-name"), ({ t }) => t("Player"));
  label(heads.querySelector(".col-total"), ({ t }) => t("Total"));
  label(heads.querySelector(".col-distance"), ({ t }) => t("To cut"));
  label(el.needsHeader, ({ t }) => t("Next hand"));
  el.fullscreen.textContent = t("Full screen");
  el.fullscreen.title = t("Full screen (key F)");
}

// -- the feed -------------------------------------------------------------------------------

const channels = ["standings", "clocks", "needs", ...(STORY ? ["stats"] : [])];
const feed = new LiveFeed(tournamentId, channels, {
  onState(channel, state, message) {
    noteServerTime(message);
    if (channel === "standings") {
      noteRankChanges(state);
      if (hasUnknownPlayers(state)) loadNames();
      renderStandings();
    } else if (channel === "clocks") {
      renderTables();
      renderSessionClock();
    } else if (channel === "needs" && el.pager.dataset.page === "cut") {
      renderStandings();
    } else if (channel === "stats" && el.pager.dataset.page === "story") {
      renderStandings();
    }
  },
  onHeartbeat: noteServerTime,
  onStatus: renderStatus,
});
window.hallDisplay = { feed }; // for the browser tests and for a curious organizer

const story = storyPage(el.story, {
  speaker,
  label,
  nameNodes,
  ariari: ARIARI,
  points: (exact) => (ARIARI ? pointsShown(exact) : exact),
  figure,
  segmentKinds,
  hasCut: () => cutOfState() !== null,
});

// -- helpers ---------------------------------------------------------------------------------

function intParam(name, fallback, low, high) {
  const value = Number.parseInt(params.get(name) ?? "", 10);
  return Number.isFinite(value) ? Math.min(high, Math.max(low, value)) : fallback;
}

function pinnedPage(text) {
  if (text === "cut" || text === "story") return text;
  const number = Number.parseInt(text ?? "", 10);
  return Number.isFinite(number) && number >= 1 ? number : null;
}

function node(tag, className, text) {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text !== undefined && text !== null) made.textContent = String(text);
  return made;
}

// A player's name for the language spoken now, the other form beside it, smaller; `named`
// is the feed's own record of the name, for a player the names map does not hold yet.
function nameNodes(player, named = undefined) {
  const known = names.get(String(player)) ?? named;
  const shown = node("span", "name-text");
  shown.translate = false;
  if (!known) {
    shown.textContent = String(player);
    return [shown];
  }
  const [first, other] = namesFor(known.name, known.local_name, speaker().lang);
  shown.textContent = first;
  const nodes = [shown];
  const local = known.local_name;
  if (first === local && known.local_lang) shown.lang = known.local_lang;
  if (other) {
    const beside = node("span", "other-name", other);
    beside.translate = false;
    if (other === local && known.local_lang) beside.lang = known.local_lang;
    nodes.push(beside);
  }
  return nodes;
}

function clockTime(ms) {
  return formatTime(ms, { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" });
}

// A score as the hall shows it. WSOM: the server's 2 decimals (rule SC-5). Ari Ari: points,
// whole (rounded down like SC-5) and with thousands separators, from the exact value. A
// negative one with a true minus sign, as the story page, the overlays and the phones write it.
function figure(exactValue, shownValue) {
  const text = !ARIARI || exactValue === null || exactValue === undefined ? shownValue : pointsShown(exactValue);
  return typeof text === "string" ? text.replace(/^-/, MINUS) : text;
}

const totalOf = (row) => figure(row.total, row.shown);
const distanceOf = (row) => figure(row.distance, row.distance_shown);

// -- names -----------------------------------------------------------------------------------

async function loadNames() {
  const now = Date.now();
  if (now - namesFetchedAt < NAMES_RETRY_MS) return;
  namesFetchedAt = now;
  try {
    const answer = await fetch(`/hall/${tournamentId}/players.json`, { cache: "no-store" });
    if (!answer.ok) return;
    names = new Map(Object.entries(await answer.json()));
    renderStandings();
  } catch {
    // Offline for now: ids stand in for names, and the next unknown player asks again.
  }
}

function hasUnknownPlayers(state) {
  return Object.keys(state.rows ?? {}).some((player) => !names.has(player));
}

// -- health ----------------------------------------------------------------------------------

function noteServerTime(message) {
  if (!message?.server_time) return;
  const at = Date.parse(message.server_time);
  if (Number.isFinite(at)) el.updated.textContent = t("updated {time}", { time: clockTime(at) });
}

function renderStatus(status) {
  const live = status === "live";
  el.badge.hidden = live;
  el.badge.className = `hall-badge status-${status}`;
  const words = { stale: t("stale"), offline: t("offline"), connecting: t("connecting") };
  el.badge.textContent = words[status] ?? status;
  root.classList.toggle("is-stale", !live);
}

// -- standings -------------------------------------------------------------------------------

function noteRankChanges(state) {
  const now = Date.now();
  const ranks = new Map(Object.entries(state.rows ?? {}).map(([player, row]) => [player, row.rank]));
  if (previousRanks && previousRanks.round === state.round) {
    for (const [player, rank] of ranks) {
      const before = previousRanks.ranks.get(player);
      if (before !== undefined && before !== rank) arrows.set(player, { up: rank < before, at: now });
    }
  }
  previousRanks = { round: state.round, ranks };
  for (const [player, arrow] of arrows) {
    if (now - arrow.at >= ARROW_MS || !ranks.has(player)) arrows.delete(player);
  }
}

function orderedRows(state) {
  return Object.entries(state?.rows ?? {})
    .map(([player, row]) => ({ ...row, id: player }))
    .sort((a, b) => a.position - b.position);
}

function cutOf(state, count) {
  const advance = state?.cut?.advance;
  return Number.isInteger(advance) && advance > 0 && advance < count ? state.cut : null;
}

function pagesOf(count, cut) {
  const numbered = Math.max(1, Math.ceil(count / rowsPerPage));
  /** @type {(number | "cut" | "story")[]} */
  const pages = Array.from({ length: numbered }, (_, i) => i + 1);
  if (cut) pages.push("cut"); // the rotation always comes back to the line
  if (STORY) pages.push("story");
  return { numbered, pages };
}

function currentPage(numbered, pages, cut) {
  if (PINNED === "cut") return cut ? "cut" : 1;
  if (PINNED === "story") return "story";
  if (PINNED !== null) return Math.min(PINNED, numbered);
  return pages[rotation % pages.length];
}

// Positions [first, last] shown on a page; the cut page centres the line on the screen.
function rangeOf(page, count, cut) {
  let first;
  if (page === "cut") {
    first = cut.advance - Math.floor(rowsPerPage / 2) + 1;
    first = Math.max(1, Math.min(first, count - rowsPerPage + 1));
  } else {
    first = (page - 1) * rowsPerPage + 1;
  }
  return [first, Math.min(count, first + rowsPerPage - 1)];
}

function renderStandings() {
  const state = feed.states.get("standings");
  if (!state) return;
  const rows = orderedRows(state);
  const cut = cutOf(state, rows.length);
  const { numbered, pages } = pagesOf(rows.length, cut);
  const page = currentPage(numbered, pages, cut);
  const [first, last] = rangeOf(page, rows.length, cut);

  const round = { number: state.round };
  label(el.round, ({ t }) => (state.ended ? t("Round {number} · ended", round) : t("Round {number}", round)));
  el.pager.textContent = page === "cut"
    ? tn("cut line · {count} page", "cut line · {count} pages", numbered)
    : page === "story" ? t("the story of the session") : t("page {page}/{pages}", { page, pages: numbered });
  el.pager.dataset.page = String(page);
  el.pager.dataset.pages = String(numbered);
  // the story takes the standings' place; they stay laid out beneath it (layout measures them)
  el.story.hidden = page !== "story";
  el.standings.classList.toggle("behind-story", page === "story");

  const byId = new Map(rows.map((row) => [row.id, row]));
  if (page === "story") {
    story.render(feed.states.get("stats") ?? null);
    renderCutInfo(cut, byId);
    return;
  }
  const tie = tieMarks(cut?.tie);
  const needs = page === "cut" ? needsWords(state.round) : null;
  el.standings.classList.toggle("with-needs", needs !== null);
  el.needsHeader.hidden = needs === null;
  const made = [sizerRow(rows, needs)];
  for (let index = first - 1; index < last; index += 1) {
    const row = rows[index];
    // rule ST-2: equal totals share a rank
    const shared = rows[index - 1]?.rank === row.rank || rows[index + 1]?.rank === row.rank;
    // rule ST-3: the line lies between position A and A+1
    if (cut && row.position === cut.advance + 1 && row.position === first) {
      made.push(cutBand(cut, byId));
    }
    made.push(standingRow(row, shared, tie, needs));
    if (cut && row.position === cut.advance) made.push(cutBand(cut, byId));
  }
  el.rows.replaceChildren(...made);
  fitRowFont();
  renderCutInfo(cut, byId);
}

// issue 18: what each player in the `needs` channel needs from the next hand, in the words
// the screen speaks now (player id -> words; "" for a player with no hand left); null, and no
// column, while the channel has no state of this round or none of them has a hand left (the
// segment is over at their tables: the column would be an empty one).
function needsWords(round) {
  const state = feed.states.get("needs");
  if (!state || state.round !== round) return null;
  const ariari = state.ariari ?? ARIARI; // rule AA-22: points
  const { t } = speaker();
  const words = new Map(Object.entries(state.rows ?? {}).map(([player, view]) => [player, needsShort(view, ariari, t)]));
  return [...words.values()].some(Boolean) ? words : null;
}

// An invisible row with the widest rank, country and figures of the whole standings: the
// grid's columns fit them on every page, so they neither overlap nor move between pages.
function sizerRow(rows, needs) {
  const longest = (texts) => texts.reduce((a, b) => (b.length > a.length ? b : a), "");
  const sizer = node("div", "hall-sizer");
  sizer.setAttribute("aria-hidden", "true");
  sizer.append(
    node("span", "col-arrow", "▲"),
    node("span", "col-rank num", `=${longest(rows.map((row) => String(row.rank)))}`),
    node("span", "col-name"),
    node("span", "col-country", longest(rows.map((row) => names.get(row.id)?.country ?? ""))),
    node("span", "col-total num", longest(rows.map(totalOf))),
    node("span", "col-distance num", `${SIDE.above}+${longest(rows.map((row) => distanceOf(row) ?? ""))}`),
  );
  if (needs) sizer.append(node("span", "col-needs", longest([...needs.values()])));
  return sizer;
}

function standingRow(row, shared, tie, needs) {
  const line = node("div", "hall-row");
  line.dataset.player = row.id;
  line.dataset.position = String(row.position);
  if (row.above_cut === true) line.classList.add("above");
  if (row.above_cut === false) line.classList.add("below");
  if (row.position % 2 === 0) line.classList.add("even");

  const arrow = node("span", "col-arrow arrow");
  const change = arrows.get(row.id);
  const age = change ? Date.now() - change.at : Infinity;
  if (age < ARROW_MS) {
    arrow.textContent = change.up ? "▲" : "▼";
    arrow.classList.add("on", change.up ? "up" : "down");
    arrow.style.animationDelay = `-${age}ms`;
  }
  const rank = node("span", "col-rank num", `${shared ? "=" : ""}${row.rank}`);

  const name = node("span", "col-name");
  name.append(...nameNodes(row.id));
  const mark = tie.get(row.id);
  if (mark) name.append(node("span", `tie-tag ${mark.kind}`, mark.text));

  const country = node("span", "col-country", names.get(row.id)?.country ?? "");
  country.translate = false;
  const total = node("span", "col-total num", totalOf(row));
  const distance = node("span", "col-distance num");
  if (row.distance_shown !== null && row.distance_shown !== undefined) {
    // above: the margin over the first player below; below: what is missing to the line.
    // ▲ and ▼ say the side without the colour, at 0 too (two players level at the line).
    const shown = distanceOf(row);
    const sign = /^[0.,]+$/.test(shown) ? "" : row.above_cut ? "+" : MINUS;
    distance.textContent = `${row.above_cut ? SIDE.above : SIDE.below}${sign}${shown}`;
    distance.classList.add(row.above_cut ? "above" : "below");
  }
  line.append(arrow, rank, name, country, total, distance);
  if (needs) line.append(node("span", "col-needs", needs.get(row.id) ?? ""));
  return line;
}

// rule ST-7: how the tie-break decides the players level at the line, now.
function tieMarks(tie) {
  const marks = new Map();
  if (!tie) return marks;
  const byHands = new Set(tie.advance_by_hands.map(String));
  const drawAmong = new Set(tie.draw_among.map(String));
  const winners = tie.draw_winners ? new Set(tie.draw_winners.map(String)) : null;
  for (const player of tie.players.map(String)) {
    if (byHands.has(player)) marks.set(player, { kind: "through", text: t("✓ on hands") });
    else if (drawAmong.has(player) && winners) {
      marks.set(player, winners.has(player)
        ? { kind: "through", text: t("✓ drawn") }
        : { kind: "out", text: t("✗ drawn") });
    } else if (drawAmong.has(player)) marks.set(player, { kind: "draw", text: t("draw") });
    else marks.set(player, { kind: "out", text: t("✗ on hands") });
  }
  return marks;
}

function tieSummary(tie, byId) {
  const count = tie.players.length;
  const level = byId.get(String(tie.players[0]));
  const shownTotal = level ? totalOf(level) : figure(tie.total, tie.total);
  const parts = [
    tn("Tie at {total}: {level} level for {count} place", "Tie at {total}: {level} level for {count} places",
      tie.places, { total: shownTotal, level: count }),
  ];
  if (tie.advance_by_hands.length) parts.push(t("{count} through on hands", { count: tie.advance_by_hands.length }));
  if (tie.draw_among.length) {
    const draw = { places: tie.draw_places, among: tie.draw_among.length };
    parts.push(tie.draw_winners ? t("draw decided ({places} of {among})", draw) : t("draw pending: {places} of {among}", draw));
  }
  return parts.join(" · ");
}

function cutBand(cut, byId) {
  const band = node("div", "cut-band");
  band.setAttribute("role", "separator");
  const advance = node("span", "cut-label");
  label(advance, ({ t }) => t("Top {count} advance", { count: cut.advance }));
  band.append(advance);
  if (cut.tie) band.append(node("span", "cut-tie", tieSummary(cut.tie, byId)));
  return band;
}

function renderCutInfo(cut, byId) {
  if (!cut) {
    const none = node("div", "cut-title");
    label(none, ({ t }) => t("No cut in this round"));
    el.cut.replaceChildren(none);
    return;
  }
  const title = node("div", "cut-title");
  label(title, ({ t }) => t("Top {count} advance", { count: cut.advance }));
  const parts = [title];
  const line = byId ? [...byId.values()].find((row) => row.position === cut.advance) : null;
  const next = byId ? [...byId.values()].find((row) => row.position === cut.advance + 1) : null;
  if (line && next) {
    parts.push(node("div", "cut-line", t("line {line} · next {next}", { line: totalOf(line), next: totalOf(next) })));
  }
  const tie = cut.tie;
  if (tie) {
    parts.push(node("div", "cut-tie-head", tieSummary(tie, byId)));
    const marks = tieMarks(tie);
    const list = node("ol", "cut-tie-list");
    const SHOWN = 3; // more would take the room the tables need
    for (const player of tie.players.slice(0, SHOWN).map(String)) {
      const item = node("li");
      item.append(...nameNodes(player).slice(0, 1));
      const hands = tie.hands[player] ?? [];
      const values = hands.map((value) => figure(String(value), String(value))); // Ari Ari: points
      item.append(node("span", "tie-hands num", values.length ? values.join(" ") : t("no wins")));
      const mark = marks.get(player);
      if (mark) item.append(node("span", `tie-tag ${mark.kind}`, mark.text));
      list.append(item);
    }
    parts.push(list);
    if (tie.players.length > SHOWN) {
      parts.push(node("div", "cut-more", t("and {count} more", { count: tie.players.length - SHOWN })));
    }
  }
  el.cut.replaceChildren(...parts);
}

// -- clocks ----------------------------------------------------------------------------------

let sessionDeadline = null;

function renderSessionClock() {
  const state = feed.states.get("clocks");
  if (!state) return;
  const now = speaker();
  const clock = sessionClock(state.tables ?? {}, feed.serverNow(), rounds, now);
  el.session.className = `hall-session session-${clock.kind}`;
  if (SECOND && !ALTERNATE) {
    const other = sessionClock(state.tables ?? {}, feed.serverNow(), rounds, SECOND);
    label(el.sessionLabel, (said) => (said === SECOND ? other.label : clock.label));
  } else {
    label(el.sessionLabel, () => clock.label);
  }
  el.sessionTime.textContent = clock.time;
  el.sessionNote.textContent = clock.note;
  if (clock.deadline !== sessionDeadline) {
    sessionDeadline = clock.deadline;
    renderTables();
  }
  const at = feed.serverNow();
  for (const { node: cell, row } of tickingCells) cell.textContent = cellClock(row, at);
}

function cellClock(row, now) {
  const leftMs = Date.parse(row.deadline) - now;
  return leftMs >= 0 ? formatClock(secondsLeft(row, now)) : `+${formatClock(Math.floor(-leftMs / 1000))}`;
}

// A segment neither opened nor scheduled (rule CL-3a) has no limit: its clock says
// "running" from the draw on. A table of one with no hand yet has not visibly begun (group
// B while group A plays its scheduled half): it waits, not plays.
function shownPhase(row) {
  const unopened = !row.starts_at && !row.play_all;
  return row.phase === "running" && unopened && row.hands_completed === 0 ? "not_started" : row.phase;
}

function renderTables() {
  const state = feed.states.get("clocks");
  if (!state) return;
  const all = Object.values(state.tables ?? {}).sort((a, b) => a.table - b.table);
  const { compact, perPage } = layoutTables(all.length, all.at(-1)?.table ?? 1);
  const pages = Math.max(1, Math.ceil(all.length / perPage));
  const first = (tableRotation % pages) * perPage;
  const rows = all.slice(first, first + perPage);
  const span = { first: rows[0]?.table ?? 1, last: rows.at(-1)?.table ?? 1 };
  label(el.tablesLabel, ({ t }) => (pages > 1 ? t("Tables {first}–{last}", span) : t("Tables")));
  el.tables.dataset.page = String((tableRotation % pages) + 1);
  el.tables.dataset.pages = String(pages);
  const counts = new Map();
  for (const row of all) counts.set(shownPhase(row), (counts.get(shownPhase(row)) ?? 0) + 1);
  tickingCells = [];
  const cells = rows.map((row) => {
    const phase = shownPhase(row);
    const cell = node("div", `table-cell phase-${phase}`);
    cell.dataset.table = String(row.table);
    cell.title = t("Table {table}: {phase}", { table: row.table, phase: phaseWord(phase) });
    cell.append(node("span", "t-num", row.table));
    const hands = segmentKindOf(row, rounds) === "game"
      ? handCount(row.hands_completed, speaker())
      : `${row.hands_completed}/${row.planned_hands}`;
    cell.append(node("span", "t-hands num", hands));
    if (!compact) {
      const ownDeadline = row.deadline && !sameDeadline(row.deadline, sessionDeadline) && !row.play_all
        && (row.phase === "running" || row.phase === "overtime");
      const word = node("span", "t-phase", phaseWord(phase));
      if (ownDeadline) tickingCells.push({ node: word, row });
      cell.append(word);
    }
    return cell;
  });
  el.tables.replaceChildren(...cells);
  el.tableCounts.textContent = PHASES
    .filter((phase) => counts.has(phase))
    .map((phase) => phaseCount(phase, counts.get(phase)))
    .join(" · ");
}

// A table's number is read from across the hall: it is 60% of its cell's height (72% in a
// compact cell, hall.css), and no cell is smaller than makes it TABLE_NUMBER_MIN of the
// screen's short side (README, "The hall display"). The grid's columns give the tallest
// cells that fit the space left in the side column (no taller than wide, nor than the widest
// number allows); when not all tables fit at the smallest size, they come a grid at a time,
// with the rotation. Compact cells (too small for the number at 60%, or for more lines) drop
// the hands and the phase word: the colour and the counts above still say it.
function layoutTables(count, widestNumber) {
  const u = designPixel();
  const width = el.tables.clientWidth;
  const height = el.tables.clientHeight;
  const gap = 8 * u;
  const numberMin = TABLE_NUMBER_MIN * Math.min(innerWidth, innerHeight);
  const smallest = numberMin / NUMBER_OF_CELL.compact;
  // the number's digits and the cell's borders, for a cell `h` high (the bigger share)
  const needsWidth = (h) => String(widestNumber).length * DIGIT_EM * NUMBER_OF_CELL.compact * h + 8 * u;
  const narrowest = needsWidth(smallest);
  let best = null;
  for (let columns = 1; columns <= Math.max(1, count); columns += 1) {
    const lines = Math.ceil(count / columns);
    const cellWidth = (width - gap * (columns - 1)) / columns;
    let cellHeight = Math.min(cellWidth, 160 * u, (height - gap * (lines - 1)) / lines);
    cellHeight = Math.min(cellHeight, cellHeight * (cellWidth / needsWidth(cellHeight)));
    // the tallest cells have the biggest numbers; between equals, the wider
    const better = !best || cellHeight > best.cellHeight + 0.5
      || (cellHeight > best.cellHeight - 0.5 && cellWidth > best.cellWidth);
    if (cellHeight >= smallest && better) best = { columns, cellHeight, cellWidth, perPage: count };
  }
  if (!best) {
    const columns = Math.max(1, Math.floor((width + gap) / (narrowest + gap)));
    const lines = Math.max(1, Math.floor((height + gap) / (smallest + gap)));
    const cellWidth = (width - gap * (columns - 1)) / columns;
    const cellHeight = Math.max(smallest, Math.min(cellWidth, (height - gap * (lines - 1)) / lines));
    best = { columns, cellHeight, cellWidth, perPage: columns * lines };
  }
  const cell = Math.floor(best.cellHeight);
  el.tables.style.gridTemplateColumns = `repeat(${best.columns}, minmax(0, 1fr))`;
  el.tables.style.setProperty("--cell", `${cell}px`);
  const compact = cell * NUMBER_OF_CELL.full < numberMin || cell < 110 * u || best.cellWidth < 100 * u;
  el.tables.classList.toggle("compact", compact);
  return { compact, perPage: best.perPage };
}

// -- layout, rotation, full screen -----------------------------------------------------------

// One pixel of the design in screen pixels: --u of hall.css.
function designPixel() {
  const [width, height] = innerHeight >= innerWidth ? DESIGN.portrait : DESIGN.landscape;
  return Math.min(innerWidth / width, innerHeight / height);
}

// The page's rows share the height the standings have. Every page keeps room for the band,
// so rows are the same height on every page. By default a page holds as many rows of the
// design's height as fit; an asked number of rows is met by making them smaller, never by
// leaving some below the screen.
function layout() {
  const space = el.rows.clientHeight - 1;
  const fitting = Math.floor(space / (DEFAULT_ROW_U * designPixel()) - BAND_ROWS);
  rowsPerPage = ROWS_ASKED ?? Math.max(5, fitting);
  rowHeight = space / (rowsPerPage + BAND_ROWS);
  root.style.setProperty("--row-h", `${rowHeight}px`);
  root.style.setProperty("--arrow-ms", `${ARROW_MS}ms`);
  renderStandings();
  renderTables();
  window.hallDisplay.laidOut = { width: innerWidth, height: innerHeight, rows: rowsPerPage };
}

// The row's font is 60% of its height, smaller only where the name column would get less
// than NAME_MIN_EM of it: the other columns are as wide as their figures, and the name
// takes what is left. Each pass measures that and scales the font (the figures' widths
// follow it); two passes are enough but for the header's fixed labels.
function fitRowFont() {
  const header = el.nameHeader;
  const whole = el.standings.clientWidth;
  let font = rowHeight * ROW_FONT;
  for (let pass = 0; pass < 4; pass += 1) {
    root.style.setProperty("--row-font", `${font}px`);
    const name = header.getBoundingClientRect().width;
    if (name >= NAME_MIN_EM * font - 0.5 || font < 4) return;
    font *= whole / (whole - name + NAME_MIN_EM * font);
  }
}

function toggleFullscreen() {
  if (document.fullscreenElement) {
    document.exitFullscreen?.().catch(() => {});
  } else {
    document.documentElement.requestFullscreen?.().catch(() => {});
  }
}

el.fullscreen.addEventListener("click", toggleFullscreen);
document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
  if (event.key === "f" || event.key === "F") toggleFullscreen();
});
document.addEventListener("fullscreenchange", () => {
  root.classList.toggle("is-fullscreen", Boolean(document.fullscreenElement));
});
window.addEventListener("resize", layout);
// The tie's list above the grid grows and shrinks: the cells follow the space left.
let tablesHeight = 0;
new ResizeObserver(() => {
  if (el.tables.clientHeight === tablesHeight) return;
  tablesHeight = el.tables.clientHeight;
  renderTables();
}).observe(el.tables);

setInterval(() => {
  turn += 1;
  tableRotation += 1; // the tables turn their grids even when the standings stay on a page
  if (ALTERNATE && SECOND) {
    spoken = languageTurn() % 2 === 1 ? SECOND : FIRST;
    // every word on the screen turns to the other language with the page
    if (PINNED === null) rotation += 1;
    renderHeads();
    renderStandings();
    renderTables();
    renderSessionClock();
    renderStatus(feed.status);
    return;
  }
  if (el.tables.dataset.pages !== "1") renderTables();
  if (PINNED !== null) return;
  rotation += 1;
  renderStandings();
}, INTERVAL_MS);

// The language switch shows while the mouse moves, and whenever it has the keyboard's focus.
/** @type {ReturnType<typeof setTimeout> | undefined} */
let pointerTimer;
document.addEventListener("mousemove", () => {
  el.languages.classList.add("shown");
  clearTimeout(pointerTimer);
  pointerTimer = setTimeout(() => el.languages.classList.remove("shown"), 3000);
});
setInterval(renderSessionClock, 250);

renderHeads();
layout();
loadNames();
feed.connect();
