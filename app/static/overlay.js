// @ts-check
// TV overlays: the server draws the first frame; this module follows the live feed and draws
// again from the channel states, with the same rules as app/web/overlay.py (keep them in
// step). Names are only ever set as text (textContent), never as HTML, marked translate="no".
// Its words come from the overlay's catalog in the language of `?lang=` (issue 17).
import { namesFor, t, tn } from "/static/i18n.js";
import { LiveFeed, formatClock, pointsShown, secondsLeft } from "/static/live.js";
import { needsShort } from "/static/needs.js";

const config = JSON.parse(document.getElementById("overlay-config").textContent);
const MINUS = "\u2212";
const DASH = "\u2013";
const CUT_BAND = 4; // app/services/feeds.py CUT_BAND
const DONE = ["finished", "finished_short"]; // a table's segment is over (rule CL-3)
const states = { ...config.states };
const who = config.names;
// An Ari Ari event's scores are whole points with thousands separators (rule AA-17), not
// the 2 decimals of SC-5: app/services/feeds.py total_shown, app/domain/ariari.py points_shown
const ARIARI = Boolean(config.ariari);
const NO_LIMIT = t("No limit"); // app/web/overlay.py no_limit
// ?names=both: a name's other form beneath or beside it (app/web/overlay.py shown_names)
const BOTH_NAMES = Boolean(config.both_names);

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function setField(name, text) {
  for (const node of document.querySelectorAll(`[data-field="${name}"]`)) {
    if (node.textContent !== text) node.textContent = text;
  }
}

// app/web/overlay.py shown_names and overlay_macros.html name
function nameNodes(player) {
  const entry = who[String(player)];
  const name = entry?.name || String(player);
  const local = entry?.local_name || null;
  const [first, other] = namesFor(name, local);
  const shown = el("span", "name", first);
  shown.translate = false;
  if (local && first === local && entry.local_lang) shown.lang = entry.local_lang;
  const nodes = [shown];
  if (BOTH_NAMES && other) {
    const beside = el("span", "other-name", other);
    beside.translate = false;
    if (other === local && entry.local_lang) beside.lang = entry.local_lang;
    nodes.push(beside);
  }
  return nodes;
}

function namesOf(player) {
  const holder = el("span", "names");
  holder.append(...nameNodes(player));
  return holder;
}

function countryNode(player) {
  const node = el("span", "country", countryOf(player));
  node.translate = false;
  return node;
}

function countryOf(player) {
  return who[String(player)]?.country || "";
}

function roundName(number) {
  return config.rounds[String(number)]?.name ?? t("Round {number}", { number });
}

function roundNames(number) {
  return config.rounds[String(number)] ?? { name: t("Round {number}", { number }), segment: "segment" };
}

// app/web/overlay.py segment_word
function segmentWord(kind, number) {
  const values = { number };
  switch (String(kind).toLowerCase()) {
    case "half":
      return t("Half {number}", values);
    case "quarter":
      return t("Quarter {number}", values);
    case "game":
      return t("Game {number}", values);
    case "session":
      return t("Session {number}", values);
    default:
      return t("Segment {number}", values);
  }
}

// app/web/overlay.py seat_word
function seatWord(seat) {
  const words = { east: t("East"), south: t("South"), west: t("West"), north: t("North") };
  return words[seat] ?? seat;
}

function segmentTitle(row) {
  const names = roundNames(row.round);
  return `${names.name} \u00b7 ${segmentWord(names.segment, row.segment)}`;
}

// app/web/overlay.py session_title: the group or groups of round 1 a clock times (rule FM-2)
function sessionTitle(session) {
  const lead = session[0];
  const groups = [...new Set(session.map((row) => row.group).filter(Boolean).map(String))].sort();
  if (!groups.length) return segmentTitle(lead);
  const names = roundNames(lead.round);
  const who = groups.length === 1
    ? t("Group {group}", { group: groups[0] })
    : t("Groups {first} and {last}", { first: groups.slice(0, -1).join(", "), last: groups.at(-1) });
  return `${names.name} \u00b7 ${who} \u00b7 ${segmentWord(names.segment, lead.segment)}`;
}

// app/domain/ariari.py points_shown, with a true minus sign on screen
function points(exactValue, signed = false) {
  return pointsShown(exactValue, { minus: MINUS, signed });
}

// app/services/feeds.py total_shown
function totalOf(standing) {
  return ARIARI ? points(standing.total) : onScreen(standing.shown);
}

// rule ST-3 as one signed figure (app/services/feeds.py to_cut)
function toCut(standing) {
  let distance = standing?.distance_shown;
  if (distance === null || distance === undefined) return null;
  if (ARIARI) distance = points(standing.distance);
  if (distance.replace(/[0.]/g, "") === "") return distance;
  return standing.above_cut ? `+${distance}` : `${MINUS}${distance}`;
}

// app/web/overlay.py on_screen: a figure with a true minus sign
function onScreen(figure) {
  return figure.startsWith("-") ? MINUS + figure.slice(1) : figure;
}

function signed(value) {
  if (ARIARI) return points(value, true);
  return value > 0 ? `+${value}` : value < 0 ? `${MINUS}${-value}` : "0";
}

// the class of a signed figure (overlay_macros.html sign)
function sign(text) {
  return text.startsWith("+") ? "plus" : text === "0" ? "zero" : "minus";
}

function ordered(standings) {
  return Object.values(standings.rows).sort((a, b) => a.position - b.position);
}

// -- boards: top N and the cut --------------------------------------------------------

function boardRows(rows, advance, withCut) {
  const nodes = [];
  for (const row of rows) {
    const side = row.above_cut === true ? " above" : row.above_cut === false ? " below" : "";
    const item = el("li", `row${side}`);
    item.dataset.player = String(row.player);
    item.append(el("span", "rank", row.rank), countryNode(row.player), namesOf(row.player));
    if (withCut) item.append(el("span", "to-cut", toCut(row) ?? ""));
    item.append(el("span", "total", totalOf(row)));
    nodes.push(item);
    if (advance !== null && advance !== undefined && row.position === advance) {
      const line = el("li", "cut-line");
      line.append(el("span", null, t("Cut")));
      nodes.push(line);
    }
  }
  document.getElementById("rows").replaceChildren(...nodes);
}

function drawTop() {
  const standings = states.standings;
  const rows = ordered(standings).filter((row) => row.position <= config.n);
  const top = t("Top {count}", { count: config.n });
  setField("what", `${roundName(standings.round)} \u00b7 ${top}`);
  boardRows(rows, standings.advance, false);
}

function drawCut() {
  const standings = states.standings;
  const advance = standings.advance;
  const rows =
    advance === null || advance === undefined
      ? []
      : ordered(standings).filter(
          (row) => advance - CUT_BAND < row.position && row.position <= advance + CUT_BAND,
        );
  const cut = t("The cut");
  setField("what", `${roundName(standings.round)} \u00b7 ${cut}`);
  setField("advance", advance ? t("Top {count} advance", { count: advance }) : t("No cut this round"));
  boardRows(rows, advance, true);
}

// -- the bubble: the players either side of the line and what each needs (issue 18) ------

// app/domain/numbers.py shown: an exact total ("45/4") in 2 decimals, rounded down (SC-5)
function twoDecimals(exactValue) {
  const [numerator, denominator = "1"] = String(exactValue).split("/");
  const scaled = BigInt(numerator) * 100n;
  const below = BigInt(denominator);
  let cents = scaled / below; // BigInt division truncates towards zero
  if (scaled % below !== 0n && scaled < 0n) cents -= 1n;
  const magnitude = cents < 0n ? -cents : cents;
  const sign = cents < 0n ? "-" : "";
  return `${sign}${magnitude / 100n}.${String(magnitude % 100n).padStart(2, "0")}`;
}

// app/web/overlay.py needs_words
function needsWords(row, points) {
  if (row.needs === "no hand left") return t("no hand left");
  return needsShort(row, points);
}

// app/web/overlay.py bubble_rows and overlay_bubble.html
function drawBubble() {
  const needs = states.needs;
  if (!needs) return;
  const advance = needs.advance;
  const points = Boolean(needs.ariari); // values and totals in points (rules AA-17, AA-22)
  const n = config.n;
  const rows =
    advance === null || advance === undefined
      ? []
      : Object.values(needs.rows)
          .filter((row) => advance - n < row.position && row.position <= advance + n)
          .sort((a, b) => a.position - b.position);
  const bubble = t("On the bubble"); // outside the template literal: the extractor reads it
  setField("what", `${roundName(needs.round)} \u00b7 ${bubble}`);
  const nodes = [];
  for (const row of rows) {
    const side = row.above_cut === true ? " above" : row.above_cut === false ? " below" : "";
    const item = el("li", `row${side}`);
    item.dataset.player = String(row.player);
    const total = onScreen(points ? pointsShown(row.total) : twoDecimals(row.total));
    item.append(el("span", "rank", row.rank), countryNode(row.player), namesOf(row.player));
    item.append(el("span", "total", total), el("span", "needs", needsWords(row, points)));
    nodes.push(item);
    if (row.position === advance) {
      const line = el("li", "cut-line");
      line.append(el("span", null, t("Top {count} advance", { count: advance })));
      nodes.push(line);
    }
  }
  document.getElementById("rows").replaceChildren(...nodes);
  const empty = /** @type {HTMLElement | null} */ (document.querySelector('[data-field="empty"]'));
  if (empty) empty.hidden = Boolean(advance);
}

// -- a player card ----------------------------------------------------------------------

function currentSeat(player, clockRows) {
  for (const seat of player.seats ?? []) {
    const clock = clockRows?.[String(seat.table)];
    if (clock && clock.segment === seat.segment) return seat;
  }
  return null;
}

function cutNote(standing) {
  if (!standing || standing.above_cut === null || standing.above_cut === undefined) return "";
  if (standing.status === "advanced") return t("Advanced");
  if (standing.status === "eliminated") return t("Eliminated");
  return standing.above_cut ? t("above the cut") : t("to make the cut");
}

function drawPlayer() {
  const player = states[`player:${config.player}`];
  if (!player) return;
  const standing = player.standing;
  const seat = currentSeat(player, states.clocks?.tables);
  const names = document.querySelector('[data-field="names"]');
  const drawn = namesOf(config.player);
  if (names && names.textContent !== drawn.textContent) names.replaceChildren(...drawn.childNodes);
  setField("country", player.country ?? "");
  setField("rank", standing ? String(standing.rank) : DASH);
  setField("total", standing ? totalOf(standing) : DASH);
  setField("to-cut", (standing && toCut(standing)) || DASH);
  setField("cut-note", cutNote(standing) || t("Cut"));
  const where = seat ? t("Table {table} · {seat}", { table: seat.table, seat: seatWord(seat.seat) }) : DASH;
  setField("seat", where);
}

// -- a table ----------------------------------------------------------------------------

const SEATS = ["east", "south", "west", "north"];

function handNote(table) {
  if (table.next_hand === null || table.next_hand === undefined) {
    return tn("{count} hand played", "{count} hands played", (table.hands ?? []).length);
  }
  // rule AA-23: an Ari Ari game plans no number of hands (its clock's 100 is the cap)
  const planned = ARIARI ? null : table.clock?.planned_hands;
  const hand = table.next_hand;
  return planned ? t("Hand {hand} of {planned}", { hand, planned }) : t("Hand {hand}", { hand });
}

function drawTable() {
  const table = states[`table:${config.table}`];
  const standings = states.standings;
  if (!table || !standings) return;
  if (table.segment === null || table.segment === undefined) {
    setField("title", "");
    setField("hand", t("Not in play"));
    document.getElementById("seats").replaceChildren();
    return;
  }
  setField("title", segmentTitle(table));
  setField("hand", handNote(table));
  const scores = {};
  for (const seat of SEATS) scores[String(table.seats[seat])] = 0;
  for (const hand of table.hands) {
    for (const [player, delta] of Object.entries(hand.deltas)) scores[player] = (scores[player] ?? 0) + delta;
  }
  const previous = new Map(
    [.../** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("#seats .seat"))].map((node) => [
      node.dataset.player,
      node.querySelector(".total")?.textContent,
    ]),
  );
  const nodes = SEATS.map((seat) => {
    const player = String(table.seats[seat]);
    const standing = standings.rows[player];
    const dealer = table.next_dealer !== null && String(table.next_dealer) === player;
    const article = el("article", `seat${dealer ? " dealer" : ""}`);
    article.dataset.seat = seat;
    article.dataset.player = player;
    const head = el("div", "seat-head");
    head.append(el("span", "wind", seatWord(seat)), el("span", "dealer-badge", t("Dealer")));
    const person = el("div", "who");
    person.append(countryNode(player), namesOf(player));
    const total = standing ? totalOf(standing) : DASH;
    const figures = el("div", "scores");
    const points = signed(scores[player]);
    figures.append(el("span", "total", total), el("span", `points ${sign(points)}`, points));
    const deltas = el("ol", "deltas");
    for (const hand of table.hands) {
      const text = signed(hand.deltas[player] ?? 0);
      deltas.append(el("li", sign(text), text));
    }
    article.append(head, person, figures, deltas);
    if (previous.has(player) && previous.get(player) !== total) article.classList.add("changed");
    return article;
  });
  document.getElementById("seats").replaceChildren(...nodes);
  tick();
}

// -- clocks (rules CL-1 to CL-6): counted down here from the deadline and the server time --

function sessionKey(row) {
  // Round 1's groups share a session when they play the same half on the same schedule.
  return JSON.stringify([row.segment, row.starts_at, row.deadline]);
}

// app/web/overlay.py clock_view
function clockView(rows, nowMs) {
  if (!rows.length) return { title: "", time: formatClock(null), note: t("No clock") };
  const counts = new Map();
  for (const row of rows) counts.set(sessionKey(row), (counts.get(sessionKey(row)) ?? 0) + 1);
  let shared = null;
  for (const [key, count] of counts) if (shared === null || count > counts.get(shared)) shared = key;
  const session = rows.filter((row) => sessionKey(row) === shared);
  const lead = session[0];
  const title = sessionTitle(session);
  const onBreak = session.filter((row) => row.phase === "break" && row.break_ends);
  const left = (moment) => formatClock(secondsLeft({ deadline: moment }, nowMs));
  if (onBreak.length) return { title, time: left(onBreak[0].break_ends), note: t("Break") };
  if (session.every((row) => DONE.includes(row.phase))) {
    return { title, time: formatClock(null), note: t("All finished") };
  }
  if (lead.starts_at && secondsLeft({ deadline: lead.starts_at }, nowMs) > 0) {
    return { title, time: left(lead.starts_at), note: t("Starts in") };
  }
  if (lead.deadline && !session.every((row) => row.play_all)) {
    if (secondsLeft(lead, nowMs) > 0) return { title, time: left(lead.deadline), note: t("To play") };
    const playing = session.filter((row) => row.phase === "overtime").length;
    return { title, time: formatClock(0), note: playing ? t("Time · {count} playing on", { count: playing }) : t("Time") };
  }
  if (ARIARI) {
    // rule AA-23: a game has no planned number of hands: the games still played are what is left
    const over = session.filter((row) => DONE.includes(row.phase)).length;
    return { title, time: NO_LIMIT, note: t("{over} of {count} games over", { over, count: session.length }) };
  }
  // rules CL-1, CL-3a, PN-2: no limit: the hands are the clock
  const hands = Math.min(...session.map((row) => row.hands_completed));
  const note = t("Hands · no time limit");
  return { title, time: `${hands}/${lead.planned_hands}`, note };
}

// app/web/overlay.py table_clock
function tableClock(row, nowMs) {
  if (!row || DONE.includes(row.phase)) return ""; // the hand count says it
  if (!(row.deadline || row.starts_at || row.break_ends)) return "";
  const { time } = clockView([row], nowMs);
  // rule AA-23: an Ari Ari game without a limit has no count of hands to show either
  return ARIARI && time === NO_LIMIT ? "" : time;
}

function clockRows() {
  return Object.values(states.clocks?.tables ?? {})
    .filter((row) => config.table === null || config.table === undefined || row.table === config.table)
    .filter((row) => config.group === null || config.group === undefined || row.group === config.group)
    .sort((a, b) => a.table - b.table);
}

function tick() {
  const now = feed.serverNow();
  if (config.kind === "clock") {
    const shown = clockView(clockRows(), now);
    setField("title", shown.title);
    setField("time", shown.time);
    setField("note", shown.note);
  } else if (config.kind === "table") {
    setField("clock", tableClock(states[`table:${config.table}`]?.clock, now));
  }
}

// -- the feed ---------------------------------------------------------------------------

const DRAW = {
  top: drawTop,
  cut: drawCut,
  bubble: drawBubble,
  player: drawPlayer,
  table: drawTable,
  clock: tick,
};

function draw() {
  try {
    DRAW[config.kind]();
  } catch (error) {
    // Keep the last good frame on air rather than a half-drawn one.
    console.error("overlay: could not draw", error);
  }
}

const feed = new LiveFeed(config.tournament_id, config.channels, {
  onState: (channel, state) => {
    states[channel] = state;
    draw();
    document.body.dataset.version = String(feed.versions.get(channel) ?? "");
  },
  onStatus: (status) => {
    // Nothing on air says "offline": the last frame stays; the status is for the operator.
    document.body.dataset.feed = status;
  },
});
feed.offsetMs = Date.parse(config.server_time) - Date.now();
draw();
feed.connect();
if (config.kind === "clock" || config.kind === "table") setInterval(tick, 250);
window.overlayFeed = feed;
