// @ts-check
// The judge's tablet, its pure state (issue 15): what the tablet shows and checks, from the
// server's state (`whoami` and the `table:N` channel) with the outbox laid over it: the next hand
// and its dealer, the hands with running totals, what the review shows, the problems that keep a
// hand from review, and what a refusal means. No DOM and no network here: views.js draws it,
// tests/js/state.test.js runs it under Node.

import { LIMIT_WORDS, RIICHI_BET, TWO_YAKU_COUNTERS, advance, playHand } from "../ariari.js";
import { formatNumber, formatTime, language, namesFor, t } from "../i18n.js";

export const STORE = "scoreboard.judge.";
export const CLOCK_KEY = `${STORE}clock`;
export const CLOCK_WINDOW_MS = 60000; // the feed's server times the clock correction is taken from
export const HAND_ENDPOINTS = new Set(["hands", "corrections", "voids"]);
export const SEAT_NAMES = ["east", "south", "west", "north"];
// The page's words, read once its catalog is in (i18n.js): a seat's wind in one letter (東 in
// Japanese and Chinese, 동 in Korean) and in full.
export const WIND = { east: t("E"), south: t("S"), west: t("W"), north: t("N") };
export const SEAT_WORDS = { east: t("East"), south: t("South"), west: t("West"), north: t("North") };
export const KIND_NAMES = {
  self_draw: t("Self-draw"),
  discard: t("Discard"),
  draw: t("Draw"),
  points: t("Points"),
  ron: t("Ron"),
  tsumo: t("Tsumo"),
  exhaustive_draw: t("Exhaustive draw"),
  chombo: t("Chombo"),
};
export const END_WORDS = {
  "AA-12": t("the last round ended"),
  "AA-13": t("agari-yame"),
  "AA-14": t("bankruptcy"),
};
// What the tablet shows of an entry's, a row's, the feed's or the clock's state: the codes
// stay in data attributes and class names, the words are the page's language.
export const STATE_WORDS = {
  queued: t("queued"),
  sent: t("sent"),
  refused: t("refused"),
  server: t("server"),
  "other device": t("other device"),
  "void queued": t("void queued"),
  "void sent": t("void sent"),
  "correction queued": t("correction queued"),
  "correction sent": t("correction sent"),
  connecting: t("connecting"),
  live: t("live"),
  offline: t("offline"),
  reconnecting: t("reconnecting"),
  stale: t("stale"),
  "no network": t("no network"),
  not_started: t("not started"),
  running: t("running"),
  overtime: t("overtime"),
  break: t("break"),
  finished: t("finished"),
  finished_short: t("time is up"),
};
const SEGMENT_WORDS = {
  half: t("half"),
  quarter: t("quarter"),
  session: t("session"),
  game: t("game"),
  segment: t("segment"),
};
export const DISCARD_SHARE_LIMIT = 25; // rule HS-2

// A list of names as the page's language writes one: "A、B、C" in Japanese, "A、B和C" in
// Chinese, "A, B, C" in English (the pseudo-locale's too), short as a tablet's line is.
const LIST = new Intl.ListFormat(language === "en-XA" ? "en" : language, { type: "conjunction", style: "narrow" });
export const listed = (items) => LIST.format(items.map(String));

// The refusals the tablet explains, by the server's `rule` and `field` (app/web/errors.py's
// problem JSON) and its HTTP status: never by its sentence, which is in the reader's language.
// 409 is a move the tournament's state forbids; 422 a request the server cannot take as it is.
const REFUSED_BY = {
  closed: (e) => e.rule === "CL-3" && e.field === "segment",
  // a hand that is in already, from this or another device (CONTRACT §3: corrections instead)
  entered: (e) => e.endpoint === "hands" && e.rule === "CONTRACT §3" && e.field === "hand" && e.code !== 422,
  // a hand of a timed segment without its deal (rule CL-3); 422 is a hand beyond the planned
  dealless: (e) => e.endpoint === "hands" && e.rule === "CL-3" && e.field === "hand" && e.code !== 422,
};

// -- rules the tablet computes before sending (the server decides) ---------------------------

// rule HS-2: the four point changes of a hand, by str(player id); null if incomplete.
export function handDeltas(result, players) {
  const deltas = Object.fromEntries(players.map((p) => [String(p), 0]));
  if (result.kind === "draw") return deltas; // a draw moves no points
  if (result.kind === "points") {
    for (const p of players) deltas[String(p)] = Number(result.deltas?.[String(p)] ?? 0);
    return deltas;
  }
  const value = result.value;
  const winner = String(result.winner);
  if (!Number.isInteger(value) || !(winner in deltas)) return null;
  for (const p of players.map(String)) {
    if (p === winner) continue;
    let pays = value; // self-draw, or a discard worth 25 or less: each of the three pays v
    if (result.kind === "discard" && value > DISCARD_SHARE_LIMIT) {
      // above 25 the discarder pays 3v - 50 and the two others 25 each
      pays = p === String(result.discarder) ? 3 * value - 2 * DISCARD_SHARE_LIMIT : DISCARD_SHARE_LIMIT;
    }
    deltas[p] = -pays;
  }
  deltas[winner] = 3 * value; // the winner always collects 3v
  return deltas;
}

export function sumOfAbs(deltas) {
  return Object.values(deltas).reduce((total, d) => total + Math.abs(d), 0);
}

export function sumOf(deltas) {
  return Object.values(deltas).reduce((total, d) => total + d, 0);
}

// rule SE-5: a proposed seat draw, shuffled with the browser's cryptographic randomness.
export function shuffled(items) {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = crypto.getRandomValues(new Uint32Array(1))[0] % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}


// -- the tablet's clock: its own, corrected by the server's time from the feed (rule CL-6) -----

// Every heartbeat and snapshot of the feed says the server's time when it was sent. A message
// is only ever late, never early, so of the last minute's readings the largest offset is the
// least delayed one. The offset is kept in localStorage: a tablet reloaded offline keeps it.
export class TabletClock {
  constructor() {
    const saved = readJson(CLOCK_KEY);
    this.offsetMs = Number.isFinite(saved?.offsetMs) ? saved.offsetMs : 0;
    this.learnedAt = saved?.learnedAt ?? null; // when this tablet last heard the server's time
    this.samples = [];
  }

  learn(serverTime) {
    const server = Date.parse(serverTime ?? "");
    if (!Number.isFinite(server)) return;
    const local = Date.now();
    this.samples = this.samples.filter((s) => local - s.at < CLOCK_WINDOW_MS && s.at <= local);
    this.samples.push({ at: local, offset: server - local });
    this.offsetMs = Math.max(...this.samples.map((s) => s.offset));
    this.learnedAt = local;
    writeJson(CLOCK_KEY, { offsetMs: this.offsetMs, learnedAt: local });
  }

  now() {
    return Date.now() + this.offsetMs;
  }
}


export function clockText(time) {
  if (time === null || time === undefined) return "–";
  return formatTime(new Date(time), { hour: "numeric", minute: "2-digit", second: "2-digit" });
}

export function signed(n) {
  if (n === null || n === undefined) return "–";
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0";
}

export function readJson(key) {
  try {
    return JSON.parse(localStorage.getItem(key) ?? "null");
  } catch {
    return null;
  }
}

export function writeJson(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // A full or disabled storage only costs the offline reload, never a hand (IndexedDB).
  }
}

// A name or a rule as a regular expression matches it, letter for letter ("CONTRACT §3").
export function escaped(text) {
  return String(text).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export function capitalised(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

// -- the tablet's state ------------------------------------------------------------------------

export class TabletState {
  constructor() {
    this.token = null;
    this.who = null; // /judge/whoami
    this.table = null; // the table:N channel's state
    this.tableVersion = 0;
    this.feedStatus = "connecting";
    // the outbox, oldest first: its sync (outbox.js) keeps the list
    this.sync = { entries: [] };
    this.tab = "hand";
    this.draft = this.emptyDraft();
    this.pendingSend = null; // what the review shows, until "Send"
    this.voidHand = null;
    this.clock = new TabletClock();
    this.entryNotice = ""; // why the form changed under the judge's hands
    // where the judge's chosen segment is kept (localStorage in the page)
    this.storage = globalThis.localStorage ?? null;
  }

  get entries() {
    return this.sync.entries;
  }

  set entries(entries) {
    this.sync.entries = entries;
  }

  cacheKey(name) {
    return `${STORE}${name}:${this.token?.slice(0, 12)}`;
  }

  segmentInfo(segment) {
    return this.who?.segments.find((s) => s.segment === segment) ?? null;
  }

  chosenKey() {
    return this.cacheKey(`segment:${this.who?.round}`);
  }

  // The segment the judge works in: the channel's, or a later one the judge moved on to.
  segment() {
    const channel = this.table?.round === this.who?.round ? this.table?.segment : null;
    const chosen = Number(this.storage?.getItem(this.chosenKey())) || null;
    const pending = this.pending().map((e) => e.body.segment);
    const candidates = [channel, chosen, ...pending].filter((s) => this.segmentInfo(s));
    if (candidates.length) return Math.max(...candidates);
    return this.who?.segments[0]?.segment ?? null;
  }

  seatsOf(segment) {
    const queued = this.pendingOf("seats", segment).filter((e) => !e.body.cycle).pop();
    if (queued) return [...queued.body.seats]; // drawn at the table, not yet on the server
    if (this.table?.segment === segment && this.table.seats) {
      return SEAT_NAMES.map((s) => this.table.seats[s]);
    }
    return this.segmentInfo(segment)?.seats ?? [];
  }

  // The table channel's state if it shows `segment` of this round.
  serverTable(segment) {
    const shown = this.table?.segment === segment && this.table.round === this.who?.round;
    return shown ? this.table : null;
  }

  pendingOf(endpoint, segment) {
    return this.pending().filter((e) => e.endpoint === endpoint && e.body.segment === segment);
  }

  serverDeal(segment, hand) {
    return (this.serverTable(segment)?.deals ?? []).find((d) => d.hand === hand) ?? null;
  }

  // The deal of `hand`, as far as this tablet knows: the server's (from any device at the
  // table), or one in this outbox (queued, sent, or refused).
  dealOf(segment, hand) {
    const server = this.serverDeal(segment, hand);
    const entry = this.entries.find(
      (e) =>
        e.endpoint === "deals" &&
        e.tournament === this.who?.tournament &&
        e.body.round === this.who?.round &&
        e.body.table === this.who?.table &&
        e.body.segment === segment &&
        e.body.hand === hand,
    );
    if (server) return { time: server.time, state: entry ? "server" : "other device", entry };
    if (entry) return { time: entry.body.time, state: entry.status, entry };
    return null;
  }

  // What the tablet knows of the segment's clock: whether its deadline can end it (rules
  // CL-3, CL-3a, PN-2), the deadline and the start (an early start still queued counts).
  timing(segment) {
    const clock = this.serverTable(segment)?.clock ?? null;
    const early = this.pendingOf("early-starts", segment)[0]?.body.time ?? null;
    if (!clock) return { known: false, timed: true, deadline: null, startsAt: early && Date.parse(early) };
    const startsAt = early ?? clock.starts_at;
    return {
      known: true,
      timed: Boolean(clock.deadline) && !clock.play_all,
      deadline: clock.deadline ? Date.parse(clock.deadline) : null,
      startsAt: startsAt ? Date.parse(startsAt) : null,
      phase: clock.phase,
    };
  }

  // Why a new hand cannot be sent yet for lack of its deal (rule CL-3), or null.
  dealProblem(segment, hand) {
    const deal = this.dealOf(segment, hand);
    if (deal && deal.state !== "refused") return null;
    const timing = this.timing(segment);
    if (!timing.timed) return null; // rule CL-3a: no deal is needed
    const kind = this.who.segment_kind;
    const now = this.clock.now();
    if (timing.deadline !== null && now > timing.deadline) {
      return t(
        "Hand {hand} has no recorded deal and the time limit passed at {time}, so the server would refuse it (rule CL-3). If its tiles were dealt before then, call the head judge to record the deal: the hand can be sent once it is in.",
        { hand, time: clockText(timing.deadline) },
      );
    }
    if (timing.startsAt !== null && now < timing.startsAt) {
      return t(
        "This {kind} starts at {time}: wait, or record an early start first (all four players agreeing, rule CL-2).",
        { kind: this.kindWord(kind), time: clockText(timing.startsAt) },
      );
    }
    return t("Tap “Tiles dealt” for hand {hand} first: in a timed {kind} every hand needs its deal (rule CL-3).", {
      hand,
      kind: this.kindWord(kind),
    });
  }

  // The seats in the cycle of `hand` (rules SE-6 to SE-9): East, South, West, North. The
  // twin of app/read/views.py's seats_now, kept here because the tablet works offline (a
  // seat draw queued here moves the later cycles too); tests/unit/test_seats_twin.py holds
  // the two to the same answers. A cycle whose new draw is not entered yet (rule SE-9, cycle
  // 7) has the seats of the cycle before it.
  cycleSeats(segment, hand) {
    const info = this.segmentInfo(segment);
    const start = this.seatsOf(segment);
    const cycles = info?.cycles ?? [];
    let index = Math.min(Math.floor((Math.max(hand, 1) - 1) / 4), cycles.length - 1);
    while (index > 0 && !cycles[index]) index -= 1;
    const cycle = cycles[index];
    if (!cycle || cycle.length !== 4 || start.length !== 4) return start;
    if (this.pendingOf("seats", segment).length) {
      // Seats drawn here and not yet on the server: the server's cycles are of the old
      // seats. A later cycle moves the players of the first by a fixed pattern (rule SE-6:
      // East and North, South and West exchange), so the same moves apply to the new seats.
      if (index === 0) return start;
      const first = (info.seats ?? []).map(String);
      const moves = cycle.map((p) => first.indexOf(String(p)));
      return first.length === 4 && moves.every((i) => i >= 0) ? moves.map((i) => start[i]) : start;
    }
    const sameFour = cycle.every((p) => start.map(String).includes(String(p)));
    return sameFour ? cycle : start;
  }

  dealerOf(segment, hand) {
    if (this.isAriAri()) return this.gameBefore(segment, hand)?.dealer ?? null; // rule AA-8
    const seats = this.cycleSeats(segment, hand);
    return seats[(hand - 1) % 4] ?? null; // rule FM-7
  }

  isAriAri() {
    return this.who?.ruleset === "ariari";
  }

  // A point change as the table shows it: at an Ari Ari table with thousands separators,
  // like the points the players hold ("−3,900" beside "21,100", rule AA-17)
  deltaText(n) {
    if (!this.isAriAri() || n === null || n === undefined) return signed(n);
    return signed(n).replace(/\d+/, (digits) => formatNumber(Number(digits)));
  }

  // The server's game at the table in `segment`, if the channel shows that segment.
  serverGame(segment) {
    const shown = this.table?.segment === segment && this.table.round === this.who?.round;
    return shown ? (this.table.game ?? null) : null;
  }

  // An Ari Ari game as it stands before `hand` (rules AA-5, AA-6, AA-8): the server's figures
  // for a hand it has, else its game moved on through the new hands still in the outbox.
  // Null when the tablet cannot know (a correction or void of an earlier hand still queued).
  gameBefore(segment, hand) {
    const rules = this.who?.game;
    const seats = this.seatsOf(segment).map(String);
    if (!rules || seats.length !== 4) return null;
    const server = this.serverGame(segment);
    const hands = this.table?.segment === segment ? (this.table.hands ?? []) : [];
    const base = { seats, tenpai_payment: rules.tenpai_payment, rotations: rules.rotations };
    if (!server) {
      if (hands.length || hand !== 1) return null;
      const points = Object.fromEntries(seats.map((p) => [p, rules.start_points]));
      return { ...base, dealer: seats[0], counters: 0, bets: 0, points, passes: 0, ended: null };
    }
    const known = hands.find((h) => h.hand === hand);
    if (known) {
      const points = Object.fromEntries(seats.map((p) => [p, rules.start_points]));
      for (const earlier of hands) {
        if (earlier.hand >= hand) continue;
        for (const p of seats) points[p] += earlier.deltas?.[p] ?? 0;
      }
      return {
        ...base,
        dealer: known.dealer,
        counters: known.counters,
        bets: known.bets_before,
        passes: known.passes,
        points,
        ended: null,
      };
    }
    let game = { ...base, ...server, ended: server.end_rule };
    let next = Math.max(0, ...hands.map((h) => h.hand)) + 1;
    for (const entry of this.pending()) {
      if (entry.body.segment !== segment || !HAND_ENDPOINTS.has(entry.endpoint)) continue;
      if (entry.endpoint !== "hands") return null; // the server replays the game after it
      if (entry.body.hand !== next || next >= hand) continue;
      game = advance(game, entry.body.result);
      if (game === null) return null;
      next += 1;
    }
    return next === hand ? game : null;
  }

  windOf(segment, hand, player) {
    if (this.isAriAri()) {
      // rule AA-8: the dealer is East; the others' winds follow in turn order
      const seats = this.seatsOf(segment).map(String);
      const dealer = seats.indexOf(String(this.dealerOf(segment, hand)));
      const index = seats.indexOf(String(player));
      return index < 0 || dealer < 0 ? "?" : WIND[SEAT_NAMES[(index - dealer + 4) % 4]];
    }
    const index = this.cycleSeats(segment, hand).map(String).indexOf(String(player));
    return index < 0 ? "?" : WIND[SEAT_NAMES[index]];
  }

  // A player's name as the page's reader reads it first: in its owner's script for a
  // reader of Japanese, Chinese or Korean (i18n.namesFor), as on the hall and the player page.
  nameOf(player) {
    return this.namesOf(player)[0];
  }

  // The name first read, the other form (or null) and the language of the name in its
  // owner's script, for its glyphs: [shown, other, lang of shown, lang of other].
  namesOf(player) {
    const known = this.who?.players?.[String(player)];
    if (!known) return [String(player), null, null, null];
    const [shown, other] = namesFor(known.name, known.local_name);
    const local = known.local_name ? (known.local_lang ?? null) : null;
    return shown === known.name ? [shown, other, null, local] : [shown, other, local, null];
  }

  // Entries not yet known to be in the server's state shown here.
  pending() {
    return this.entries.filter(
      (e) =>
        e.body.table === this.who?.table &&
        e.body.round === this.who?.round &&
        (e.status === "queued" || (e.status === "sent" && (e.answer?.version ?? 0) > this.serverVersion())),
    );
  }

  serverVersion() {
    return this.table?.round === this.who?.round ? this.tableVersion : 0;
  }

  // The hands of a segment as the server has them, with the outbox laid over them.
  rows(segment) {
    const rows = new Map();
    if (this.table?.segment === segment && this.table.round === this.who?.round) {
      for (const hand of this.table.hands ?? []) {
        rows.set(hand.hand, {
          hand: hand.hand,
          deltas: hand.deltas,
          value: hand.value,
          state: "server",
          dealer: hand.dealer,
          result: hand.result,
        });
      }
    }
    const players = this.seatsOf(segment);
    for (const entry of this.pending()) {
      if (entry.body.segment !== segment || !HAND_ENDPOINTS.has(entry.endpoint)) continue;
      const number = entry.body.hand;
      const label = entry.status === "queued" ? "queued" : "sent";
      if (entry.endpoint === "voids") {
        const row = rows.get(number) ?? { hand: number, deltas: null };
        rows.set(number, { ...row, state: `void ${label}`, voided: true, key: entry.key });
      } else if (entry.endpoint === "hands" && rows.get(number)?.state === "server") {
        // The channel brought the hand before this entry's answer did: the server's row is
        // the hand (entered once, whoever sent it), with what only the server counts in it,
        // such as the bets and uma of the hand that ends an Ari Ari game (rule AA-15).
        continue;
      } else {
        const kind = entry.endpoint === "corrections" ? `correction ${label}` : label;
        const game = this.isAriAri() && entry.endpoint === "hands" ? this.gameBefore(segment, number) : null;
        rows.set(number, {
          hand: number,
          deltas: this.isAriAri()
            ? (game && playHand(entry.body.result, game)?.deltas) || null
            : handDeltas(entry.body.result, players),
          value: entry.body.result.value,
          result: entry.body.result,
          state: kind,
          key: entry.key,
        });
      }
    }
    return [...rows.values()].sort((a, b) => a.hand - b.hand);
  }

  // The next hand to play: after the last live hand, as the server counts (a void of the
  // last hand gives its number back); null when the segment has all its hands.
  nextHand(segment) {
    const live = this.rows(segment)
      .filter((r) => !r.voided)
      .map((r) => r.hand);
    let next = Math.max(0, ...live) + 1;
    const channel = this.table?.segment === segment && this.table.round === this.who?.round;
    const info = this.segmentInfo(segment);
    if (!channel && info) next = Math.max(next, info.next_hand ?? this.who.hands_per_segment + 1);
    if (this.isAriAri() && this.gameEnded(segment, next)) return null; // rules AA-12 to AA-14
    return next > this.who.hands_per_segment ? null : next;
  }

  // Why the game at the table ended before hand `next`, or null while it goes on.
  gameEnded(segment, next) {
    const server = this.serverGame(segment);
    if (server?.end_rule) return server.end_rule;
    const before = this.gameBefore(segment, next - 1);
    if (!before || next === 1) return null;
    const row = this.pending().find((e) => e.endpoint === "hands" && e.body.segment === segment && e.body.hand === next - 1);
    return row ? (advance(before, row.body.result)?.ended ?? null) : null;
  }

  // What the end of the game adds to its last hand (rules AA-15, AA-16, AA-27): each
  // player's leftover bets and uma, from the server's game. The server counts them in the
  // deltas of the hand that ended the game, so the hands add up to the results; the tablet
  // shows them apart, so that a hand's row and the points are what the players count.
  gameEnd(segment) {
    const server = this.serverGame(segment);
    if (!server?.ended) return null;
    const players = {};
    for (const row of server.players ?? []) players[String(row.player)] = row;
    const extra = Object.fromEntries(
      Object.entries(players).map(([p, row]) => [p, (row.bets ?? 0) + (row.uma ?? 0)]),
    );
    return { hand: server.hands, bets: server.bets, players, extra };
  }

  // The clock's phase at `now` as this tablet knows the table: the server's, or, past the
  // deadline, what the server will say once it has what this tablet holds (rule CL-3: the
  // hand dealt in time is finished in overtime; without one the half is over).
  phaseHere(clock, segment, now) {
    const deadline = clock.deadline ? Date.parse(clock.deadline) : null;
    const late = ["not_started", "running", "overtime"].includes(clock.phase);
    if (deadline === null || clock.play_all || !late || now <= deadline) return clock.phase;
    if (this.table?.segment !== segment || !this.who) return clock.phase;
    const next = this.nextHand(segment);
    if (next === null) return clock.phase;
    const deal = this.dealOf(segment, next);
    const inTime = deal && deal.state !== "refused" && Date.parse(deal.time) <= deadline;
    return inTime ? "overtime" : "finished_short";
  }

  // rule AA-15: who took the riichi bets left on the table at the end of the game
  leftoverText(segment) {
    const end = this.isAriAri() ? this.gameEnd(segment) : null;
    if (!end?.bets) return "";
    const shares = Object.entries(end.players)
      .filter(([, row]) => row.bets)
      .map(([p, row]) => `${this.nameOf(p)} ${formatNumber(row.bets)}`);
    return t(". Riichi bets left on the table, {bets}: {shares} (rule AA-15)", {
      bets: formatNumber(end.bets),
      shares: listed(shares),
    });
  }

  totals(segment) {
    const totals = Object.fromEntries(this.seatsOf(segment).map((p) => [String(p), 0]));
    const running = [];
    for (const row of this.rows(segment)) {
      if (!row.voided && row.deltas) {
        for (const [p, d] of Object.entries(row.deltas)) totals[p] = (totals[p] ?? 0) + d;
      }
      running.push({ ...row, totals: { ...totals } });
    }
    return { totals, running };
  }

  lastHand(segment) {
    return Math.max(0, ...this.rows(segment).filter((r) => !r.voided).map((r) => r.hand));
  }

  counts() {
    const counts = { queued: 0, sent: 0, refused: 0 };
    for (const entry of this.entries) counts[entry.status] = (counts[entry.status] ?? 0) + 1;
    return counts;
  }

  describe(entry) {
    const body = entry.body;
    const segment = this.segmentText(this.who?.segment_kind ?? "segment", body.segment);
    const where = t("{segment} hand {hand}", { segment, hand: body.hand });
    const time = clockText(body.time);
    if (entry.endpoint === "deals") {
      return entry.redealt
        ? t("{where}: tiles dealt at {time} (recorded anew after a refusal)", { where, time })
        : entry.auto
          ? t("{where}: tiles dealt at {time} (when the entry began)", { where, time })
          : t("{where}: tiles dealt at {time}", { where, time });
    }
    if (entry.endpoint === "early-starts") {
      return t("{segment}: early start at {time}, all four agreeing", { segment, time });
    }
    if (entry.endpoint === "seats") {
      const seats = listed(body.seats.map((p, i) => `${WIND[SEAT_NAMES[i]]} ${this.nameOf(p)}`));
      return t("{segment}: seats {seats}", { segment, seats });
    }
    if (entry.endpoint === "voids") return t("{where}: void ({reason})", { where, reason: body.reason });
    const result = body.result;
    const value = result.value;
    let what = KIND_NAMES[result.kind];
    if (this.isAriAri()) what = this.longResult(result);
    else if (result.kind === "self_draw") {
      what = t("Self-draw {value} by {winner}", { value, winner: this.nameOf(result.winner) });
    } else if (result.kind === "discard") {
      what = t("Discard {value}: {winner} from {discarder}", {
        value,
        winner: this.nameOf(result.winner),
        discarder: this.nameOf(result.discarder),
      });
    }
    if (entry.endpoint === "corrections") {
      return t("{where}: correction to {what} ({reason})", { where, what, reason: body.reason });
    }
    return t("{where}: {what}", { where, what });
  }

  // An Ari Ari win as the players say it: "3 fan 30 fu", "mangan".
  winText(win) {
    if (win.limit) return LIMIT_WORDS[win.limit] ?? win.limit;
    return win.fu ? t("{fan} fan {fu} fu", { fan: win.fan, fu: win.fu }) : t("{fan} fan", { fan: win.fan });
  }

  shortResult(result) {
    if (!result) return "–";
    if (result.kind === "ron") return t("Ron {wins}", { wins: result.wins.map((w) => this.winText(w)).join(" + ") });
    if (result.kind === "tsumo") return t("Tsumo {win}", { win: this.winText(result) });
    if (result.kind === "exhaustive_draw") return t("Draw · {count} tenpai", { count: (result.tenpai ?? []).length });
    return KIND_NAMES[result.kind] ?? result.kind;
  }

  longResult(result) {
    const names = (players) => listed((players ?? []).map((p) => this.nameOf(p)));
    let what;
    if (result.kind === "ron") {
      const wins = result.wins.map((w) =>
        t("{name} {win}, {yaku} yaku", { name: this.nameOf(w.winner), win: this.winText(w), yaku: w.yaku }),
      );
      // each win says its yaku after a comma: the wins are apart by more than one
      const all = wins.reduce((earlier, win) => t("{wins}; {win}", { wins: earlier, win }));
      what = t("Ron on {discarder}'s discard: {wins}", { discarder: this.nameOf(result.discarder), wins: all });
    } else if (result.kind === "tsumo") {
      what = t("Tsumo by {winner}: {win}, {yaku} yaku", {
        winner: this.nameOf(result.winner),
        win: this.winText(result),
        yaku: result.yaku,
      });
    } else if (result.kind === "exhaustive_draw") {
      const nobody = t("nobody");
      what = t("Exhaustive draw, tenpai: {names}", { names: names(result.tenpai) || nobody });
    } else {
      what = t("Chombo by {offender}", { offender: this.nameOf(result.offender) });
    }
    if (result.riichi?.length) what += t("; riichi: {names}", { names: names(result.riichi) });
    if (result.dead?.length) what += t("; dead hand: {names}", { names: names(result.dead) });
    return what;
  }

  emptyDraft(mode = "new", hand = null, segment = null) {
    return {
      mode,
      hand,
      segment,
      kind: null,
      winner: null,
      discarder: null,
      value: "",
      deltas: {},
      typing: null,
      reason: "",
      // an Ari Ari hand (rules AA-2 to AA-11): winners in turn order, each one's win
      winners: [],
      wins: {},
      tenpai: [],
      offender: null,
      riichi: [],
      dead: [],
    };
  }

  draftTarget() {
    const segment = this.draft.segment ?? this.segment();
    const hand = this.draft.hand ?? this.nextHand(segment);
    return { segment, hand };
  }

  // What the review shows before anything is sent: the entry, the four point changes (rule
  // HS-2, or an Ari Ari hand played on the game before it) and, at an Ari Ari table, the bets
  // it moves and the end of the game it brings; null while the draft has a problem.
  reviewOf() {
    const { result, problem } = this.draftResult();
    if (problem) return null;
    const { segment, hand } = this.draftTarget();
    const game = this.isAriAri() ? this.gameBefore(segment, hand) : null;
    const played = game && playHand(result, game);
    const deltas = this.isAriAri() ? (played?.deltas ?? null) : handDeltas(result, this.seatsOf(segment));
    return {
      segment,
      hand,
      endpoint: this.draft.mode === "correction" ? "corrections" : "hands",
      body: {
        round: this.who.round,
        segment,
        table: this.who.table,
        hand,
        result,
        ...(this.draft.mode === "correction" ? { reason: this.draft.reason.trim() } : {}),
      },
      deltas,
      // rule AA-5: what the hand puts on the table or takes from it, so the sum shows zero
      tableBets: played ? played.bets_after - game.bets : undefined,
      // rules AA-12 to AA-14: the rule this hand ends the game by, and the bets it leaves
      gameEnds: played ? advance(game, result)?.ended ?? null : null,
      betsLeft: played ? played.bets_after : 0,
    };
  }

  // The result the draft describes, or the problem that keeps it from review.
  draftResult() {
    const draft = this.draft;
    const { segment, hand } = this.draftTarget();
    const players = this.seatsOf(segment);
    if (hand === null) return { problem: t("This segment has all its hands.") };
    if (players.length !== 4) return { problem: t("The seats are not known yet.") };
    if (draft.mode === "new") {
      // rule CL-3: a new hand of a timed segment goes only with its deal
      const missing = this.dealProblem(segment, hand);
      if (missing) return { problem: missing };
    }
    if (!draft.kind) return { problem: t("Pick the outcome.") };
    if (draft.mode === "correction" && !draft.reason.trim()) {
      return { problem: t("Say why the hand is corrected.") };
    }
    if (this.isAriAri()) return this.ariAriResult(segment, hand);
    if (draft.kind === "draw") return { result: { kind: "draw" } };
    if (draft.kind === "points") {
      const deltas = {};
      for (const p of players) {
        const text = draft.deltas[String(p)] ?? "0";
        if (!/^-?\d+$/.test(text)) return { problem: t("Enter a number for {name}.", { name: this.nameOf(p) }) };
        deltas[String(p)] = Number(text);
      }
      const total = sumOf(deltas);
      if (total !== 0)
        return { problem: t("The point changes sum to {total}; they must sum to 0 (rule HS-7).", { total }) };
      return { result: { kind: "points", deltas } };
    }
    if (draft.winner === null) return { problem: t("Tap the winner's seat.") };
    if (draft.kind === "discard" && draft.discarder === null) return { problem: t("Tap the discarder's seat.") };
    const value = Number(draft.value);
    if (!draft.value) return { problem: t("Enter the hand's value.") };
    if (value < this.who.min_value || value > this.who.max_value) {
      return {
        problem: t("A winning hand is worth {min} to {max} (rule HS-3).", { min: this.who.min_value, max: this.who.max_value }),
      };
    }
    const result = { kind: draft.kind, winner: draft.winner, value };
    if (draft.kind === "discard") result.discarder = draft.discarder;
    return { result };
  }

  // The Ari Ari result the draft describes, or what keeps it from review: the server's own
  // checks (rules AA-2, AA-7, AA-11, AA-18, AA-19), so that the judge hears them at the table.
  ariAriResult(segment, hand) {
    const draft = this.draft;
    const game = this.gameBefore(segment, hand);
    const facts = {};
    if (draft.riichi.length) facts.riichi = [...draft.riichi];
    if (draft.dead.length) facts.dead = [...draft.dead];
    for (const player of draft.riichi) {
      const points = game?.points?.[player];
      if (points !== undefined && points < RIICHI_BET) {
        return {
          problem: t("{name} has {points} points: a riichi needs 1,000 (rule AA-18).", {
            name: this.nameOf(player),
            points: formatNumber(points),
          }),
        };
      }
    }
    const winOf = (player) => {
      const win = draft.wins[player];
      const name = this.nameOf(player);
      if (draft.dead.includes(player)) return { problem: t("{name} has a dead hand and cannot win (rule AA-11).", { name }) };
      if (!win.limit && !win.fan) return { problem: t("Enter {name}'s fan or a limit (rule AA-2).", { name }) };
      if (!win.limit && win.fan < 5 && !win.fu) return { problem: t("Tap {name}'s fu (rule AA-19).", { name }) };
      if (game && game.counters >= TWO_YAKU_COUNTERS && win.yaku < 2) {
        return {
          problem: t("{counters} counters are on the table: {name} needs 2 yaku (rule AA-7).", {
            counters: game.counters,
            name,
          }),
        };
      }
      const out = { winner: player };
      if (win.limit) out.limit = win.limit;
      else {
        out.fan = win.fan;
        if (win.fan < 5) out.fu = win.fu;
      }
      out.yaku = win.yaku;
      return { win: out };
    };
    if (draft.kind === "ron") {
      if (draft.discarder === null) return { problem: t("Tap the discarder's seat.") };
      if (!draft.winners.length) return { problem: t("Tap the winner's seat (several for a multiple ron).") };
      // rule AA-4: the winners in turn order after the discarder
      const seats = this.seatsOf(segment).map(String);
      const start = seats.indexOf(draft.discarder);
      const order = [1, 2, 3].map((step) => seats[(start + step) % 4]).filter((p) => draft.winners.includes(p));
      const wins = [];
      for (const player of order) {
        const { win, problem } = winOf(player);
        if (problem) return { problem };
        wins.push(win);
      }
      return { result: { kind: "ron", discarder: draft.discarder, wins, ...facts } };
    }
    if (draft.kind === "tsumo") {
      if (!draft.winners.length) return { problem: t("Tap the winner's seat.") };
      const { win, problem } = winOf(draft.winners[0]);
      if (problem) return { problem };
      return { result: { kind: "tsumo", ...win, ...facts } };
    }
    if (draft.kind === "exhaustive_draw") {
      const dead = draft.tenpai.find((p) => draft.dead.includes(p));
      if (dead) return { problem: t("{name} has a dead hand and cannot be tenpai (rule AA-11).", { name: this.nameOf(dead) }) };
      return { result: { kind: "exhaustive_draw", tenpai: [...draft.tenpai], ...facts } };
    }
    if (draft.offender === null) return { problem: t("Tap the offender's seat.") };
    return { result: { kind: "chombo", offender: draft.offender, ...facts } };
  }

  // A hand the judge is entering here, entered meanwhile on another device at the table: the
  // form must not offer to enter it again (the server would refuse it as entered already).
  supersedeDraft() {
    const draft = this.draft;
    // The hand being entered, or the one on the review screen, waiting for "Send".
    const reviewing = this.tab === "review" && this.pendingSend?.endpoint === "hands" ? this.pendingSend.body : null;
    const target = reviewing ?? (draft.mode === "new" && draft.hand !== null ? draft : null);
    if (!target) return;
    const server = this.serverTable(target.segment);
    const entered = (server?.hands ?? []).find((h) => h.hand === target.hand);
    if (!entered) return;
    const ours = this.entries.some(
      (e) => e.endpoint === "hands" && e.body.segment === target.segment && e.body.hand === target.hand,
    );
    if (ours) return;
    const values = { hand: target.hand, result: this.rowText(target.segment, { deltas: entered.deltas }) };
    this.entryNotice = reviewing
      ? t(
          "Hand {hand} was entered on another device at this table: {result}. Nothing was sent from here; the review was closed and the form now shows the next hand.",
          values,
        )
      : t(
          "Hand {hand} was entered on another device at this table: {result}. Nothing was sent from here; the form now shows the next hand.",
          values,
        );
    this.draft = this.emptyDraft();
    if (reviewing) {
      this.pendingSend = null;
      this.tab = "hand";
    }
  }

  rowText(segment, row) {
    const deltas = row.deltas ?? {};
    return this.seatsOf(segment)
      .map((p) => `${this.nameOf(p)} ${this.deltaText(deltas[String(p)] ?? 0)}`)
      .join(" · ");
  }

  // What became of the seats last recorded on this tablet for `segment`.
  seatsResult(segment) {
    const entry = this.entries.filter((e) => e.endpoint === "seats" && e.body.segment === segment && e.body.round === this.who.round).pop();
    if (!entry) return "";
    const seats = entry.body.seats;
    const names = listed(SEAT_NAMES.map((seat, i) => `${SEAT_WORDS[seat]} ${this.nameOf(seats[i])}`));
    if (entry.status === "sent") return t("Seats recorded: {names}.", { names });
    if (entry.status === "refused") return t("Seats refused: {error}", { error: entry.error });
    return t("Seats kept on this tablet: {names}. They go to the server as soon as the network allows.", { names });
  }

  firstRefused() {
    return this.entries.find((e) => e.status === "refused") ?? null;
  }

  explainRefusal(entry) {
    const body = entry.body;
    const kind = this.kindWord(this.who?.segment_kind ?? "segment");
    const hand = body.hand;
    const rule = entry.rule;
    const now = clockText(this.clock.now());
    const clock = t(
      "This tablet's clock was more than 30 seconds off the server's when it sent it, so the server cannot trust the time this tablet gave it",
    );
    const headJudge = t(
      "Call the head judge: they record it by hand, with its time and a reason. This tablet sends it again by itself once it is in, then the entries after it.",
    );
    // A deal refused or missing while the time limit has not passed can be recorded anew,
    // at the time it is now: never earlier than the real deal, so never unfair (rule CL-3).
    const dealNow = this.canDealNow(body.segment, body.hand);
    const nowOrHeadJudge = dealNow
      ? t(
          "The time limit has not passed: tap “Record the deal now” to record the deal at {time}, later than the tiles were really dealt, and the entries after it go on. Or call the head judge to record it at its real time: this tablet then sends it again by itself.",
          { time: now },
        )
      : headJudge;
    if (REFUSED_BY.closed(entry)) {
      return {
        title:
          entry.endpoint === "deals"
            ? t("The deal of hand {hand} was refused", { hand })
            : t("{entry} was refused", { entry: this.describe(entry) }),
        what: t("The organizer has closed this {kind}: it takes no new hand or deal (rule CL-3).", { kind }),
        next: t("If the hand was played in time, call the head judge. Otherwise discard it."),
      };
    }
    if (entry.endpoint === "deals") {
      const title = t("The deal of hand {hand} was refused", { hand });
      if (rule === "CL-6" && entry.field === "sent") {
        return {
          title,
          what: t("{clock} ({time} on this tablet, rule CL-6).", { clock, time: clockText(body.time) }),
          next: nowOrHeadJudge,
          dealNow,
        };
      }
      if (rule === "CL-3" && entry.field === "time") {
        return {
          title,
          what: t(
            "The tiles of hand {hand} were dealt at {time}, after the time limit: no new hand may start after it (rule CL-3).",
            { hand, time: clockText(body.time) },
          ),
          next: t(
            "If they were dealt in time, call the head judge to record the deal. Otherwise discard it: this {kind} is over for the table.",
            { kind },
          ),
        };
      }
      if (rule === "CL-2") {
        return {
          title,
          what: t("The deal at {time} is before this {kind}'s start, and no early start is recorded (rule CL-2).", {
            time: clockText(body.time),
            kind,
          }),
          next: dealNow
            ? t(
                "The {kind} has started now: “Record the deal now” records the deal at {time}, and the entries after it go on. Or call the head judge.",
                { kind, time: now },
              )
            : t(
                "If all four players agreed to start early, record the early start, then send the deal again. Otherwise call the head judge, or discard it.",
              ),
          dealNow,
        };
      }
      return {
        title,
        what: this.reason(entry),
        next: dealNow
          ? t(
              "Call the head judge, or discard it. The time limit has not passed: “Record the deal now” records it at {time}, later than the tiles were really dealt, and the entries after it go on.",
              { time: now },
            )
          : t("Call the head judge, or discard it."),
        dealNow,
      };
    }
    if (entry.endpoint === "early-starts") {
      const title = t("The early start was refused");
      if (rule === "CL-6") return { title, what: t("{clock} (rule CL-6).", { clock }), next: headJudge };
      const startsAt = this.serverTable(body.segment)?.clock?.starts_at;
      const minutes = this.who?.early_start_minutes;
      // rule CL-2 refuses an early start on its `time` for more than one reason (the table
      // has started already, say): this one is the tablet's to see, by the times themselves.
      const tooEarly =
        rule === "CL-2" &&
        entry.field === "time" &&
        startsAt &&
        Number.isFinite(minutes) &&
        Date.parse(startsAt) - Date.parse(body.time) > minutes * 60000;
      const what = tooEarly
        ? t(
            "The early start at {time} is more than {minutes} minutes before the scheduled start, {start} (rule CL-2).",
            { time: clockText(body.time), minutes, start: clockText(startsAt) },
          )
        : this.reason(entry);
      return { title, what, next: t("Discard it and start on the schedule, or call the head judge.") };
    }
    if (entry.endpoint === "seats") {
      return {
        title: t("The seats were refused"),
        what: this.reason(entry),
        next: t("Discard them and record the seats again on the Seats tab, or call the head judge."),
      };
    }
    const title = t("Hand {hand} was refused", { hand });
    // The server has no deal of the hand; one it has, but late, is for the head judge.
    if (REFUSED_BY.dealless(entry) && !this.serverDeal(body.segment, hand)) {
      if (dealNow) {
        return {
          title,
          what: t(
            "Hand {hand} reached the server without its deal, and in a timed {kind} every hand needs one (rule CL-3).",
            { hand, kind },
          ),
          next: t(
            "The time limit has not passed: “Record the deal now” records the deal at {time}, and the hand goes after it. Or call the head judge to record it at the time the tiles were dealt.",
            { time: now },
          ),
          dealNow,
        };
      }
      return {
        title,
        what: t("Hand {hand} has no deal recorded before the time limit, and the limit has passed (rule CL-3).", { hand }),
        next: t(
          "If its tiles were dealt in time, call the head judge to record the deal: this tablet then sends the hand again by itself. Otherwise the hand does not count: discard it.",
        ),
      };
    }
    if (REFUSED_BY.entered(entry)) {
      return {
        title,
        what: t("Hand {hand} is already entered at this table, from another tablet or device.", { hand }),
        next: t(
          "Compare it with the hands on the left. Discard this one; if this tablet's result was the right one, correct the hand (Correct / void) and give the reason.",
        ),
      };
    }
    return {
      title,
      what: this.reason(entry),
      next: t(
        "Discard it and enter it again as it should be, or send it again once the cause is fixed (the head judge can help).",
      ),
    };
  }

  // Whether this tablet may record the deal of `hand` now, by its own clock: a timed segment
  // that has started, whose deadline has not passed, and a clock corrected by the feed in
  // the last moments (a clock the server refused is right again only once it is).
  canDealNow(segment, hand) {
    if (!this.who || !hand) return false;
    const timing = this.timing(segment);
    if (!timing.known || !timing.timed) return false;
    const fresh = this.clock.learnedAt !== null && Math.abs(Date.now() - this.clock.learnedAt) < 15000;
    if (this.feedStatus !== "live" || !fresh) return false;
    const now = this.clock.now();
    if (timing.deadline !== null && now > timing.deadline) return false;
    if (timing.startsAt !== null && now < timing.startsAt) return false;
    return this.serverDeal(segment, hand) === null;
  }

  // The server's sentence as a sentence of the tablet's, its rule named once. The server
  // frames its `detail` in the reader's language as "field 'F': ... (rule R)" says it in
  // English: the frame goes by what it holds, the field's and the rule's own names, which
  // no language translates; what is left is the server's sentence, in the page's language.
  reason(entry) {
    let text = (entry.error ?? "").trim();
    const { field, rule } = entry;
    // up to the field's name in quotes and the colon after it: "項目「hand」: ", "field 'hand': ",
    // and a hand's own before it ("hand 4: field 'result.wins': ")
    const frame = field ? text.match(new RegExp(`^.{0,40}?${escaped(field)}['"’”」]\\s*[:：]\\s*`)) : null;
    text = text.slice(frame?.[0].length ?? 0);
    if (rule) {
      // the last brackets, when they name the rule: "（規則 CL-3）", " (rule CL-3)"; with the
      // close of the frame's own pseudo-locale brackets, when the frame opened them
      const close = frame?.[0].startsWith("⟦") ? "·*⟧?" : "";
      text = text.replace(new RegExp(`\\s*[(（][^()（）]*${escaped(rule)}[)）]${close}$`), "");
    }
    const sentence = capitalised(text) || t("The server refused it");
    if (!rule) return sentence;
    return text.includes(rule) ? sentence : t("{sentence} (rule {rule}).", { sentence, rule });
  }

  // A segment's name as the tournament calls it: "Half 1", "Quarter 3", "Game 1".
  segmentText(kind, number) {
    if (kind === "half") return t("Half {number}", { number });
    if (kind === "quarter") return t("Quarter {number}", { number });
    if (kind === "session") return t("Session {number}", { number });
    if (kind === "game") return t("Game {number}", { number });
    return `${capitalised(kind)} ${number}`;
  }

  // The same inside a sentence, as in "round 2 · half 1" or "Go to half 2".
  segmentWord(kind, number) {
    return t("{kind} {number}", { kind: this.kindWord(kind), number });
  }

  // The segment's kind as a word inside a sentence ("this half"): nouns that do not inflect
  // in the tablet's languages, so one sentence serves every kind.
  kindWord(kind) {
    return SEGMENT_WORDS[kind] ?? kind;
  }
}
