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

// -- the story of the session (issue 18): the stats channel, a card at a time ---------------

const STORY_ROWS = 3; // app/web/overlay.py STORY_ROWS
const STORY_PARTS = ["hands", "movers", "crossed", "leaders", "counts"]; // and its ?only=
const STORY_SECONDS = [3, 60]; // app/web/overlay.py STORY_FASTEST, STORY_SLOWEST
const story = { key: null, index: 0, timer: null };

// app/web/overlay.py _scope: "Half 1", or "Group A · Half 1" in round 1 (rule FM-2)
function storyScope(stats) {
  const segment = segmentWord(roundNames(stats.round).segment, stats.segment ?? 0);
  return stats.group ? `${t("Group {group}", { group: stats.group })} \u00b7 ${segment}` : segment;
}

function storyTotal(total, shown) {
  return onScreen(ARIARI ? pointsShown(total) : shown);
}

// app/web/overlay.py win_word
function winWord(kind) {
  if (kind === "self_draw") return ARIARI ? t("Tsumo") : t("Self-draw");
  if (kind === "discard") return ARIARI ? t("Ron") : t("Discard win");
  return t("Ruling");
}

function storyRow(player, fields) {
  return { player, label: "", sign: "", dealtIn: null, aside: "", ...fields };
}

// app/web/overlay.py _hand_rows: the biggest hands (HS-4; AA-22 in points), with the hand's
// segment when the list spans the round (`segmentKind`)
function handRows(hands, segmentKind) {
  return hands.slice(0, STORY_ROWS).map((big) => {
    const at = t("Table {table} \u00b7 Hand {hand}", { table: big.table, hand: big.hand });
    return storyRow(String(big.player), {
      figure: ARIARI ? pointsShown(big.value) : String(big.value),
      note: winWord(big.kind),
      dealtIn: big.discarder === null || big.discarder === undefined ? null : String(big.discarder),
      aside: segmentKind === null ? at : `${segmentWord(segmentKind, big.segment)} \u00b7 ${at}`,
    });
  });
}

// app/web/overlay.py _mover_rows: rule ST-2, the rank before the segment's hands and now
function moverRows(movers) {
  return movers.slice(0, STORY_ROWS).map((mover) => {
    const change = signed(mover.change);
    return storyRow(String(mover.player), {
      figure: change,
      sign: sign(change),
      note: t("Rank {before} \u2192 {now}", { before: mover.rank_before, now: mover.rank }),
      aside: storyTotal(mover.total, mover.shown),
    });
  });
}

// app/web/overlay.py _crossed_rows: rule ST-3
function crossedRows(crossed) {
  return crossed.slice(0, STORY_ROWS).map((row) =>
    storyRow(String(row.player), {
      label: row.up ? "\u25b2" : "\u25bc",
      figure: storyTotal(row.total, row.shown),
      sign: row.up ? "plus" : "minus",
      note: row.up ? t("Over the line") : t("Under the line"),
      aside: t("Place {before} \u2192 {now}", { before: row.position_before, now: row.position }),
    }),
  );
}

// app/web/overlay.py _leader_rows
function leaderRows(leaders) {
  return leaders.slice(0, STORY_ROWS).map((leader) => {
    const points = signed(leader.points);
    return storyRow(String(leader.player), {
      label: t("Table {table}", { table: leader.table }),
      figure: points,
      sign: sign(points),
      note: tn("{count} hand played", "{count} hands played", leader.hands),
      aside: leader.shared ? t("level at the top") : "",
    });
  });
}

// app/web/overlay.py _count_row (rule HS-1; AA-3, AA-9, AA-10)
function countRow(label, counts) {
  const endings = [
    ARIARI
      ? tn("{count} tsumo", "{count} tsumo", counts.self_draws)
      : tn("{count} self-draw", "{count} self-draws", counts.self_draws),
    ARIARI
      ? tn("{count} ron", "{count} ron", counts.discards)
      : tn("{count} discard win", "{count} discard wins", counts.discards),
    tn("{count} draw", "{count} draws", counts.draws),
  ];
  if (counts.others) endings.push(tn("{count} other", "{count} others", counts.others));
  return storyRow(null, {
    label,
    figure: tn("{count} hand", "{count} hands", counts.hands),
    note: endings.join(" \u00b7 "),
  });
}

// app/web/overlay.py story_cards
function storyCards(stats) {
  const roundName = roundNames(stats.round).name;
  const scope = stats.segment === null || stats.segment === undefined ? "" : storyScope(stats);
  const cards = [];
  const card = (part, key, title, rows, segment = false) => {
    if (!rows.length) return;
    const what = [roundName, ...(segment ? [scope] : []), title].join(" \u00b7 ");
    cards.push({ part, key, what, rows });
  };
  for (const part of config.only) {
    if (part === "hands") {
      const biggest = t("Biggest hands");
      card(part, "hands-round", biggest, handRows(stats.hands.round, roundNames(stats.round).segment));
      const shownRound = JSON.stringify(stats.hands.round.slice(0, STORY_ROWS));
      if (JSON.stringify(stats.hands.segment.slice(0, STORY_ROWS)) !== shownRound) {
        card(part, "hands-segment", biggest, handRows(stats.hands.segment, null), true);
      }
    } else if (part === "movers") {
      card(part, "climbers", t("Climbers"), moverRows(stats.climbers), true);
      card(part, "fallers", t("Fallers"), moverRows(stats.fallers), true);
    } else if (part === "crossed") {
      card(part, "crossed", t("Across the cut line with the last hand"), crossedRows(stats.crossed));
    } else if (part === "leaders") {
      card(part, "leaders", t("Table leaders"), leaderRows(stats.leaders), true);
    } else if (part === "counts" && stats.counts.round.hands) {
      const rows = [countRow(roundName, stats.counts.round)];
      const segment = stats.counts.segment;
      if (stats.segment !== null && stats.segment !== undefined && segment.hands !== stats.counts.round.hands) {
        rows.push(countRow(scope, segment));
      }
      card(part, "counts", t("How the hands ended"), rows);
    }
  }
  return cards;
}

// app/web/overlay.py story_empty
function storyEmpty(stats) {
  const roundName = roundNames(stats.round).name;
  const title = t("The story of the session");
  return {
    what: `${roundName} \u00b7 ${title}`,
    text: stats.counts.round.hands ? t("Nothing to tell yet") : t("No hand played yet in this round"),
  };
}

// overlay_story.html, a row
function storyRowNode(row) {
  const item = el("li", "row story-row");
  if (row.player !== null) item.dataset.player = row.player;
  if (row.label) item.append(el("span", "label", row.label));
  if (row.player !== null) item.append(countryNode(row.player), namesOf(row.player));
  item.append(el("span", row.sign ? `figure ${row.sign}` : "figure", row.figure), el("span", "note", row.note));
  if (row.dealtIn !== null) {
    const from = el("span", "from");
    from.append(el("span", "from-word", t("dealt in by")), namesOf(row.dealtIn));
    item.append(from);
  }
  if (row.aside) item.append(el("span", "aside", row.aside));
  return item;
}

// The card on air: the one shown before while it has something to tell, else the one in its
// place. `turn`: a new card, which comes in with a short move.
function drawStory(turn = false) {
  const stats = states.stats;
  if (!stats) return;
  const cards = storyCards(stats);
  let index = cards.findIndex((card) => card.key === story.key);
  if (index < 0) index = cards.length ? Math.min(story.index, cards.length - 1) : 0;
  const card = cards[index] ?? null;
  story.index = index;
  story.key = card?.key ?? null;
  const panel = document.getElementById("story");
  panel.dataset.card = story.key ?? "";
  const empty = storyEmpty(stats);
  setField("what", card ? card.what : empty.what);
  setField("empty", empty.text);
  document.getElementById("rows").replaceChildren(...(card ? card.rows.map(storyRowNode) : []));
  const nothing = /** @type {HTMLElement | null} */ (document.querySelector('[data-field="empty"]'));
  if (nothing) nothing.hidden = Boolean(card);
  if (turn) {
    panel.classList.remove("turn");
    void panel.offsetWidth; // restarts the animation
    panel.classList.add("turn");
  }
}

// The next card (CasparCG's next(), or the card's time is up), from `to` when given: a part
// or a card's key (update({"card": "leaders"})).
function turnStory(to = null) {
  const cards = storyCards(states.stats);
  if (!cards.length) return;
  const wanted = to === null ? -1 : cards.findIndex((card) => card.key === to || card.part === to);
  if (to !== null && wanted < 0) return;
  story.index = wanted >= 0 ? wanted : (story.index + 1) % cards.length;
  story.key = cards[story.index].key;
  drawStory(true);
}

function startStoryClock() {
  clearInterval(story.timer);
  story.timer = setInterval(() => turnStory(), config.seconds * 1000);
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
  // the seat in the cycle in play, not as drawn (rule SE-10)
  const where = seat ? t("Table {table} · {seat}", { table: seat.table, seat: seatWord(seat.seat_now) }) : DASH;
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
  // where each sits now (rule SE-10): after a cycle the seats move, and the dealer's wind with them
  const seated = table.seats_now;
  const nodes = SEATS.map((seat) => {
    const player = String(seated[seat]);
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
  story: drawStory,
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

// -- CasparCG's HTML template protocol (issue 18, docs/casparcg.md) ------------------------
// CasparCG's HTML producer runs `play()`, `stop()`, `next()` and `update("data")` in the page
// (its html_cg_proxy, for CG PLAY, CG STOP, CG NEXT, CG UPDATE and CG ADD's data). In OBS or
// vMix nobody calls them and the page is on air from the start; with ?caspar=1, or inside
// CasparCG (it puts `window.caspar` in every page it plays), it starts off air until play()
// (static/overlay-air.js, before the first frame).

const root = document.documentElement;
const LANGUAGES = ["en", "ja", "zh-Hant", "zh-Hans", "ko", "en-XA"]; // app/domain/languages.py
const MAX_NUMBER = 2 ** 31 - 1; // app/web/deps.py
const NEEDS_BAND = 4; // app/read/views.py: the bubble's ?n= at most
const KEPT = `overlay:${location.pathname}`; // across a reload into another language
let reloading = false;

function setOnAir(shown) {
  root.classList.toggle("off-air", !shown);
  document.body.dataset.onAir = String(shown);
}

function keep(shown) {
  try {
    const kept = JSON.parse(sessionStorage.getItem(KEPT) ?? "{}");
    sessionStorage.setItem(KEPT, JSON.stringify({ ...kept, shown }));
  } catch {
    // no storage: the reloaded page starts as ?caspar= says
  }
}

function play() {
  if (reloading) return keep(true);
  const wasOff = root.classList.contains("off-air");
  if (config.kind === "story" && wasOff) {
    // each time it goes on air the story begins again from its first card
    story.key = null;
    story.index = 0;
    drawStory(true);
    startStoryClock();
  }
  setOnAir(true);
}

function stop() {
  if (reloading) return keep(false);
  setOnAir(false);
}

function next() {
  if (config.kind !== "story") return; // one picture: nothing to step through
  turnStory();
  startStoryClock();
}

// CG ADD's or CG UPDATE's data: JSON ({"n": 5}), or CasparCG's templateData XML, each
// componentData's id a key and its data's value the value.
function templateData(data) {
  if (data !== null && typeof data === "object") return Array.isArray(data) ? null : data;
  const text = String(data ?? "").trim();
  try {
    if (text.startsWith("{")) {
      const values = JSON.parse(text);
      return values && typeof values === "object" && !Array.isArray(values) ? values : null;
    }
    if (text.startsWith("<")) {
      const xml = new DOMParser().parseFromString(text, "application/xml");
      if (xml.querySelector("parsererror")) return null;
      const values = {};
      for (const component of xml.querySelectorAll("componentData")) {
        const value = component.querySelector("data")?.getAttribute("value");
        const key = component.getAttribute("id");
        if (key && value !== null && value !== undefined) values[key] = value;
      }
      return values;
    }
  } catch (error) {
    console.warn("overlay: update() takes JSON or templateData XML", error);
  }
  return null;
}

function whole(value, least, most) {
  const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return Number.isInteger(number) && number >= least && number <= most ? number : null;
}

function storyParts(value) {
  const asked = (Array.isArray(value) ? value : String(value).split(",")).map((part) => String(part).trim());
  return asked.every((part) => STORY_PARTS.includes(part))
    ? STORY_PARTS.filter((part) => asked.includes(part))
    : null;
}

// What update() may change, by overlay (docs/casparcg.md); anything else is passed over, so
// a value the page would refuse in its address never reaches the screen.
function update(data) {
  const values = templateData(data);
  if (!values) return;
  const { lang, ...rest } = values;
  if (typeof lang === "string" && LANGUAGES.includes(lang) && lang !== root.lang) {
    // the words come with the page: it comes back in that language, the rest applied then
    reloading = true;
    try {
      sessionStorage.setItem(KEPT, JSON.stringify({ shown: !root.classList.contains("off-air"), update: rest }));
    } catch {
      // no storage: the rest of the data is lost with the page
    }
    const address = new URL(location.href);
    address.searchParams.set("lang", lang);
    location.replace(address.href);
    return;
  }
  const kind = config.kind;
  if ((kind === "top" || kind === "bubble") && "n" in rest) {
    const n = whole(rest.n, 1, kind === "top" ? 16 : NEEDS_BAND);
    if (n !== null) config.n = n;
  }
  if (kind === "story") {
    const seconds = "seconds" in rest ? whole(rest.seconds, ...STORY_SECONDS) : null;
    const parts = "only" in rest ? storyParts(rest.only) : null;
    if (seconds !== null) config.seconds = seconds;
    if (parts !== null && parts.length) config.only = parts;
    drawStory();
    if (typeof rest.card === "string") turnStory(rest.card);
    if (seconds !== null || parts !== null || typeof rest.card === "string") startStoryClock();
    return;
  }
  if (kind === "player" && typeof rest.player === "string" && Object.hasOwn(who, rest.player)) {
    config.player = rest.player;
    feed.subscribe(`player:${rest.player}`); // drawn when its state comes
  }
  if (kind === "table" && "table" in rest) {
    const table = whole(rest.table, 1, MAX_NUMBER);
    if (table !== null) {
      config.table = table;
      feed.subscribe(`table:${table}`);
    }
  }
  if (kind === "clock") {
    if ("table" in rest) config.table = rest.table === null ? null : (whole(rest.table, 1, MAX_NUMBER) ?? config.table);
    if ("group" in rest && (rest.group === null || (typeof rest.group === "string" && rest.group.length <= 20))) {
      config.group = rest.group;
    }
  }
  draw();
}

Object.assign(window, { play, stop, next, update });
setOnAir(!root.classList.contains("off-air"));
try {
  const kept = sessionStorage.getItem(KEPT);
  if (kept) {
    sessionStorage.removeItem(KEPT);
    const { shown, update: data } = JSON.parse(kept);
    if (typeof shown === "boolean") setOnAir(shown);
    if (data) update(data);
  }
} catch {
  // nothing kept, or no storage
}

draw();
feed.connect();
if (config.kind === "clock" || config.kind === "table") setInterval(tick, 250);
if (config.kind === "story") startStoryClock();
window.overlayFeed = feed;
