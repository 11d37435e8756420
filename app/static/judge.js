// The judge's tablet (issue 6): one table's hands, deals, seats and early start.
//
// What the server knows comes from the `table:N` live channel and `/judge/whoami`; both are
// kept in localStorage so that the page still shows the table after a reload while offline.
// What the judge enters (hands, corrections, voids, and deals, seats and early starts too,
// issue 13) goes first into the outbox, an IndexedDB store on this tablet, under a key made
// here that is also the Idempotency-Key: the outbox sends it, in order, until the server
// confirms it, so a reload, a dropped network or a server restart loses nothing and, since
// a retry carries the same key (a deal, seat or early start: the same natural key), doubles
// nothing (CONTRACT §3). A deal or an early start carries this tablet's time of it, by its
// clock corrected from the feed's server time, and its clock when sent: the server judges
// the deal by that time (rule CL-3), so a deal made offline before the deadline counts.
// An entry the server refuses stops the outbox and covers the actions with what happened
// and what to do, until the judge sends it again or discards it.
//
// Names and other text from the server are only ever set with textContent.

import { LiveFeed, formatClock } from "/static/live.js";
import { LIMITS, RIICHI_BET, TWO_YAKU_COUNTERS, VALID_FU, advance, basePoints, handLabel, ordinal, playHand } from "/static/ariari.js";

const STORE = "scoreboard.judge.";
const TOKEN_KEY = `${STORE}token`;
const RETRY_EVERY_MS = 5000; // besides the browser's `online` event
const IN_PROGRESS_RETRY_MS = 1000; // the server said "retry in a moment"
const REQUEST_TIMEOUT_MS = 10000; // a request that hangs is abandoned and sent again later
const KEEP_SENT = 60; // sent entries kept on the tablet, as a record
const CLOCK_KEY = `${STORE}clock`;
const CLOCK_WINDOW_MS = 60000; // the feed's server times the clock correction is taken from
const HAND_ENDPOINTS = new Set(["hands", "corrections", "voids"]);
const TIMED_ENDPOINTS = new Set(["deals", "early-starts"]); // they carry the tablet's time
const SEAT_NAMES = ["east", "south", "west", "north"];
const WIND = { east: "E", south: "S", west: "W", north: "N" };
const KIND_NAMES = {
  self_draw: "Self-draw",
  discard: "Discard",
  draw: "Draw",
  points: "Points",
  ron: "Ron",
  tsumo: "Tsumo",
  exhaustive_draw: "Exhaustive draw",
  chombo: "Chombo",
};
const END_WORDS = {
  "AA-12": "the last round ended",
  "AA-13": "agari-yame",
  "AA-14": "bankruptcy",
};
const DISCARD_SHARE_LIMIT = 25; // rule HS-2

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

function sumOfAbs(deltas) {
  return Object.values(deltas).reduce((total, d) => total + Math.abs(d), 0);
}

export function sumOf(deltas) {
  return Object.values(deltas).reduce((total, d) => total + d, 0);
}

export function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  // Outside a secure context (plain http on a LAN address) randomUUID is missing.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
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

function isoTime(ms) {
  return new Date(ms).toISOString();
}

function clockText(time) {
  return time === null || time === undefined ? "–" : new Date(time).toLocaleTimeString();
}

// -- the outbox: IndexedDB, one record per hand, correction, void, deal, seating, early start -

export class Outbox {
  constructor(name = "scoreboard-judge") {
    this.name = name;
    this.db = null;
  }

  open() {
    return new Promise((resolve, reject) => {
      const request = indexedDB.open(this.name, 1);
      request.onupgradeneeded = () => request.result.createObjectStore("outbox", { keyPath: "key" });
      request.onsuccess = () => {
        this.db = request.result;
        resolve(this);
      };
      request.onerror = () => reject(request.error);
    });
  }

  run(mode, work) {
    return new Promise((resolve, reject) => {
      const transaction = this.db.transaction("outbox", mode);
      const request = work(transaction.objectStore("outbox"));
      transaction.oncomplete = () => resolve(request?.result);
      transaction.onerror = () => reject(transaction.error);
      transaction.onabort = () => reject(transaction.error);
    });
  }

  async all() {
    const entries = await this.run("readonly", (store) => store.getAll());
    return entries.sort((a, b) => a.created - b.created || a.order - b.order);
  }

  put(entry) {
    return this.run("readwrite", (store) => store.put(entry));
  }

  remove(key) {
    return this.run("readwrite", (store) => store.delete(key));
  }
}

// -- small helpers ---------------------------------------------------------------------------

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "dataset") Object.assign(node.dataset, value);
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "text") node.textContent = value;
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const $ = (id) => document.getElementById(id);

// A labelled group of choice buttons: the label, then the buttons in a row of `rowClass`.
function choiceGroup(label, rowClass, dataset, buttons) {
  return el(
    "div",
    { class: "pick" },
    el("div", { class: "pick-label", text: label }),
    el("div", { class: `choice-row ${rowClass}`, role: "group", "aria-label": label, dataset }, ...buttons),
  );
}

// A winner's hand as the judge starts entering it: 1 fan, 1 yaku, no fu or limit yet.
const newWin = () => ({ fan: 1, fu: null, limit: null, yaku: 1 });

function signed(n) {
  if (n === null || n === undefined) return "–";
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0";
}

function readJson(key) {
  try {
    return JSON.parse(localStorage.getItem(key) ?? "null");
  } catch {
    return null;
  }
}

function writeJson(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // A full or disabled storage only costs the offline reload, never a hand (IndexedDB).
  }
}

function capitalised(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

// -- the tablet ------------------------------------------------------------------------------

class Tablet {
  constructor() {
    this.token = null;
    this.who = null; // /judge/whoami
    this.table = null; // the table:N channel's state
    this.tableVersion = 0;
    this.feed = null;
    this.feedStatus = "connecting";
    this.outbox = new Outbox();
    this.entries = []; // the outbox, oldest first
    this.flushing = false;
    this.flushAgain = false;
    this.tokenProblem = null;
    this.tab = "hand";
    this.draft = this.emptyDraft();
    this.drawSeats = null; // the seats being drawn (rule SE-5)
    this.swapFrom = null;
    this.voidHand = null;
    this.clock = new TabletClock();
    this.entryNotice = ""; // why the form changed under the judge's hands
    this.lastCreated = 0;
    this.dealing = new Set(); // "segment:hand" of deals being put in the outbox
    this.historyPushed = false; // the page's own history entry (the back button)
  }

  // ---- start ----

  async start() {
    this.takeTokenFromAddress();
    // A card scanned while the page is open changes only the fragment: no new page load.
    window.addEventListener("hashchange", () => {
      if (!new URLSearchParams(location.hash.replace(/^#/, "")).has("token")) return;
      this.takeTokenFromAddress();
      location.reload();
    });
    this.token = localStorage.getItem(TOKEN_KEY);
    this.bindStatic();
    this.registerServiceWorker();
    try {
      await this.outbox.open();
      this.entries = await this.outbox.all();
    } catch (error) {
      this.fatal(`This browser cannot keep an outbox (IndexedDB): ${error}`);
      return;
    }
    if (!this.token) {
      this.showNoToken();
      return;
    }
    await this.loadWhoAmI();
    window.addEventListener("online", () => {
      this.renderStatus();
      this.feed?.reconnectNow();
      this.flush();
    });
    window.addEventListener("offline", () => this.renderStatus());
    setInterval(() => this.flush(), RETRY_EVERY_MS);
    // The clock ticks, and with it whether a new hand may still start (rule CL-3).
    setInterval(() => {
      this.renderClock();
      if (!this.who) return;
      this.renderNextHand(this.segment());
      if (this.tab === "start") this.renderStart();
      if (this.firstRefused()) this.renderRefusal(); // whether the deal may still be recorded
    }, 1000);
    this.flush();
  }

  registerServiceWorker() {
    if (!("serviceWorker" in navigator)) return; // plain http on a LAN address: see docs/https.md
    navigator.serviceWorker.register("/judge/sw.js", { scope: "/judge" }).catch(() => {});
  }

  // The judge's card opens /judge#token=...: a browser never sends the fragment, so no
  // server or proxy log sees the token. An older card's /judge?token=... still works (the
  // server's access log redacts it, app/web/logs.py). Either way the token is kept in
  // localStorage and taken out of the address at once: not in the address bar, the history,
  // a bookmark or a screenshot.
  takeTokenFromAddress() {
    const url = new URL(location.href);
    const fragment = new URLSearchParams(url.hash.replace(/^#/, ""));
    const token = fragment.get("token") || url.searchParams.get("token");
    if (!fragment.has("token") && !url.searchParams.has("token")) return;
    if (token) localStorage.setItem(TOKEN_KEY, token.trim());
    fragment.delete("token");
    url.searchParams.delete("token");
    const rest = fragment.toString();
    history.replaceState(history.state, "", url.pathname + url.search + (rest ? `#${rest}` : ""));
  }

  showNoToken(message = "") {
    $("judge").dataset.state = "no-token";
    $("no-token").hidden = false;
    $("tablet").hidden = true;
    $("token-error").textContent = message;
  }

  fatal(message) {
    $("judge").dataset.state = "error";
    $("no-token").hidden = false;
    $("token-error").textContent = message;
  }

  cacheKey(name) {
    return `${STORE}${name}:${this.token?.slice(0, 12)}`;
  }

  // Who the token is: the tournament, the table, the names. What the tablet saw last is shown
  // at once (a reload while the server is down or slow), then replaced by the server's answer.
  async loadWhoAmI() {
    if (this.who === null) {
      const cached = readJson(this.cacheKey("whoami"));
      if (cached) this.showWho(cached);
    }
    let who = null;
    try {
      const response = await this.api("GET", "/judge/whoami");
      if (response.status === 401) {
        localStorage.removeItem(TOKEN_KEY);
        this.token = null;
        const problem = await response.json().catch(() => ({}));
        this.showNoToken(problem.detail ?? "This table token is not known.");
        return;
      }
      if (response.ok) {
        who = await response.json();
        writeJson(this.cacheKey("whoami"), who);
      }
    } catch {
      // no network or no server: keep what the tablet saw last
    }
    if (who) {
      this.showWho(who);
    } else if (!this.who) {
      $("judge").dataset.state = "waiting";
      $("no-token").hidden = false;
      $("no-token").querySelector("h1").textContent = "Waiting for the server";
      setTimeout(() => this.loadWhoAmI(), RETRY_EVERY_MS);
    }
  }

  showWho(who) {
    const first = this.who === null;
    this.who = who;
    if (first) {
      const cached = readJson(this.cacheKey("table"));
      if (cached && cached.round === who.round) {
        this.table = cached.state;
        this.tableVersion = cached.version;
      }
      $("no-token").hidden = true;
      $("tablet").hidden = false;
      $("judge").dataset.state = "ready";
      this.feed = new LiveFeed(who.tournament, [`table:${who.table}`], {
        onState: (_, state, message) => {
          // a snapshot's server time is fresh; a change may come from the feed's history
          if (message.type === "snapshot") this.clock.learn(message.server_time);
          this.onTable(state, message);
        },
        onHeartbeat: (message) => this.clock.learn(message.server_time),
        onStatus: (status) => this.renderStatus(status),
      }).connect();
    }
    this.render();
  }

  api(method, path, body, headers = {}) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), REQUEST_TIMEOUT_MS);
    return fetch(path, {
      method,
      cache: "no-store",
      signal: controller.signal,
      headers: {
        Authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).finally(() => clearTimeout(timer));
  }

  onTable(state, message) {
    const before = this.table;
    this.table = state;
    this.tableVersion = message.version;
    writeJson(this.cacheKey("table"), { round: state.round, state, version: message.version });
    const players = Object.values(state.seats ?? {}).map(String);
    const unknown = players.some((p) => !(p in (this.who?.players ?? {})));
    if (
      unknown ||
      before?.round !== state.round ||
      before?.segment !== state.segment ||
      JSON.stringify(before?.seats) !== JSON.stringify(state.seats)
    ) {
      this.loadWhoAmI(); // new round, segment or seats: names and cycles come from whoami
    }
    this.supersedeDraft();
    this.retryOnceRecorded();
    this.render();
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
    this.entryNotice =
      `Hand ${target.hand} was entered on another device at this table: ` +
      `${this.rowText(target.segment, { deltas: entered.deltas })}. Nothing was sent from here; ` +
      `${reviewing ? "the review was closed and " : ""}the form now shows the next hand.`;
    this.draft = this.emptyDraft();
    if (reviewing) {
      this.pendingSend = null;
      this.tab = "hand";
    }
  }

  // A deal refused (the tablet's clock was off, or it came too late) that the head judge has
  // since recorded: sent again, it is the deal in the log, and the outbox goes on.
  retryOnceRecorded() {
    for (const entry of this.entries) {
      if (entry.status !== "refused" || entry.field === "segment") continue;
      if (entry.tournament !== this.who?.tournament || entry.body.round !== this.who?.round) continue;
      if (entry.endpoint === "early-starts" && entry.rule === "CL-6") {
        // The head judge's early start moves the clock's start before the one it showed
        // when this tablet's was refused: sent again, it is the early start in the log.
        const startsAt = this.serverTable(entry.body.segment)?.clock?.starts_at;
        if (startsAt && entry.startsAtThen && Date.parse(startsAt) < Date.parse(entry.startsAtThen)) this.retry(entry);
        continue;
      }
      if (!["CL-3", "CL-6", "CL-2"].includes(entry.rule) || !["deals", "hands"].includes(entry.endpoint)) continue;
      const deal = this.serverDeal(entry.body.segment, entry.body.hand);
      if (deal) this.retry(entry);
    }
  }

  // ---- what the tablet shows: the server's state plus the outbox ----

  segmentInfo(segment) {
    return this.who?.segments.find((s) => s.segment === segment) ?? null;
  }

  chosenKey() {
    return this.cacheKey(`segment:${this.who?.round}`);
  }

  // The segment the judge works in: the channel's, or a later one the judge moved on to.
  segment() {
    const channel = this.table?.round === this.who?.round ? this.table?.segment : null;
    const chosen = Number(localStorage.getItem(this.chosenKey())) || null;
    const pending = this.pending().map((e) => e.body.segment);
    const candidates = [channel, chosen, ...pending].filter((s) => this.segmentInfo(s));
    if (candidates.length) return Math.max(...candidates);
    return this.who?.segments[0]?.segment ?? null;
  }

  chooseSegment(segment) {
    localStorage.setItem(this.chosenKey(), String(segment));
    this.render();
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
      return (
        `Hand ${hand} has no recorded deal and the time limit passed at ${clockText(timing.deadline)}, ` +
        "so the server would refuse it (rule CL-3). If its tiles were dealt before then, call the " +
        "head judge to record the deal: the hand can be sent once it is in."
      );
    }
    if (timing.startsAt !== null && now < timing.startsAt) {
      return `This ${kind} starts at ${clockText(timing.startsAt)}: wait, or record an early start first (all four players agreeing, rule CL-2).`;
    }
    return `Tap “Tiles dealt” for hand ${hand} first: in a timed ${kind} every hand needs its deal (rule CL-3).`;
  }

  // rule CL-3: in a timed segment the deal of a new hand is recorded when the judge starts
  // entering it, if nobody recorded it before and the deadline has not passed: the tiles were
  // dealt before the judge could start entering the result, so that time is never too early.
  autoDeal(segment, hand) {
    if (hand === null || this.dealOf(segment, hand)) return;
    const timing = this.timing(segment);
    if (!timing.timed) return;
    const now = this.clock.now();
    if (timing.deadline !== null && now > timing.deadline) return; // dealProblem says why
    if (timing.startsAt !== null && now < timing.startsAt) return;
    this.queueDeal(segment, hand, true);
  }

  // The judge starts entering a new hand: the form keeps to that hand from now on.
  startEntering() {
    const draft = this.draft;
    this.entryNotice = "";
    if (draft.mode !== "new") return;
    if (draft.hand === null) {
      const { segment, hand } = this.draftTarget();
      draft.segment = segment;
      draft.hand = hand;
    }
    this.autoDeal(draft.segment, draft.hand);
  }

  // The seats in the cycle of `hand` (rules SE-6 to SE-9): East, South, West, North.
  cycleSeats(segment, hand) {
    const info = this.segmentInfo(segment);
    const start = this.seatsOf(segment);
    const index = Math.floor((Math.max(hand, 1) - 1) / 4);
    const cycle = info?.cycles?.[index];
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
    return signed(n).replace(/\d+/, (digits) => Number(digits).toLocaleString("en"));
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

  nameOf(player) {
    return this.who?.players?.[String(player)]?.name ?? String(player);
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

  // ---- rendering ----

  render() {
    if (!this.who) return;
    const segment = this.segment();
    const kind = this.who.segment_kind;
    $("where-table").textContent = `Table ${this.who.table}`;
    $("where-segment").textContent =
      `${this.who.tournament_name} · round ${this.who.round} · ${kind} ${segment ?? "–"}`;
    this.renderNextHand(segment);
    this.renderSeatCards(segment);
    this.renderHands(segment);
    this.renderOutbox();
    this.renderEntry();
    this.renderFix(segment);
    this.renderSeatDraw(segment);
    this.renderStart();
    this.renderClock();
    this.renderTabs();
    this.renderRefusal();
  }

  renderStatus(status = this.feedStatus) {
    this.feedStatus = status;
    // The browser knows first when the tablet has no network at all; the feed may take a
    // heartbeat or two to notice.
    const shown = navigator.onLine ? status : "no network";
    const node = $("feed-status");
    node.className = `status-${shown === "no network" ? "offline" : shown}`;
    node.textContent = shown;
  }

  renderClock() {
    const clock = this.table?.round === this.who?.round ? this.table?.clock : null;
    const node = $("clock");
    node.dataset.phase = clock?.phase ?? "none";
    if (!clock) {
      node.textContent = "no clock";
      return;
    }
    const now = this.clock.now();
    const until = (time) => Math.max(0, Math.ceil((Date.parse(time) - now) / 1000));
    const since = (time) => Math.max(0, Math.floor((now - Date.parse(time)) / 1000));
    let text;
    const segment = this.who ? this.segment() : null;
    const early = this.who ? this.pendingOf("early-starts", segment)[0] : null;
    const phase = this.phaseHere(clock, segment, now);
    node.dataset.phase = phase;
    if (phase === "overtime" && clock.deadline) {
      text = `overtime +${formatClock(since(clock.deadline))}`;
    } else if (phase === "finished_short") {
      text = "time is up";
    } else if (clock.phase === "not_started" && clock.deadline && (early || until(clock.starts_at) === 0)) {
      // started early here, the server not told yet: the deadline does not move (rule CL-2);
      // or started on schedule since the feed last said (the tablet is offline)
      text = `${formatClock(until(clock.deadline))} left`;
    } else if (clock.phase === "not_started" && clock.starts_at) {
      text = `starts in ${formatClock(until(clock.starts_at))}`;
    } else if (clock.phase === "running" && clock.deadline) {
      const left = until(clock.deadline);
      text = left > 0 ? `${formatClock(left)} left` : "time";
    } else if (clock.phase === "running") {
      text = "no time limit";
    } else if (clock.phase === "overtime" && clock.deadline) {
      text = `overtime +${formatClock(since(clock.deadline))}`;
    } else if (clock.phase === "break" && clock.break_ends) {
      text = `break ${formatClock(until(clock.break_ends))}`;
    } else if (clock.phase === "finished_short") {
      text = "time is up";
    } else {
      text = clock.phase.replace("_", " ");
    }
    node.textContent = text;
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

  renderNextHand(segment) {
    const next = this.nextHand(segment);
    const total = this.who.hands_per_segment;
    const dealButton = $("deal-button");
    const done = $("segment-done");
    if (next === null) {
      $("deal-note").textContent = "";
      $("next-title").textContent = `${capitalised(this.who.segment_kind)} ${segment} is complete`;
      const ended = this.isAriAri() ? this.gameEnded(segment, this.lastHand(segment) + 1) : null;
      $("next-dealer").textContent = this.isAriAri()
        ? `The game ended after hand ${this.lastHand(segment)}${ended ? `: ${END_WORDS[ended] ?? ended} (rule ${ended})` : ""}${this.leftoverText(segment)}`
        : `${total} of ${total} hands`;
      dealButton.hidden = true;
      const later = this.who.segments.find((s) => s.segment > segment);
      done.hidden = !later;
      done.replaceChildren();
      if (later) {
        done.append(
          el("button", {
            type: "button",
            class: "big primary",
            id: "next-segment",
            text: `Go to ${this.who.segment_kind} ${later.segment}`,
            onclick: () => {
              this.chooseSegment(later.segment);
              this.showTab("seats");
            },
          }),
        );
      }
      return;
    }
    done.hidden = true;
    const dealer = this.dealerOf(segment, next);
    $("next-title").textContent = `Hand ${next} of ${total}`;
    $("next-dealer").textContent =
      dealer === null ? "" : `Dealer: ${this.windOf(segment, next, dealer)} · ${this.nameOf(dealer)}`;
    const game = this.isAriAri() ? this.gameBefore(segment, next) : null;
    if (this.isAriAri()) {
      // rules AA-5, AA-6, AA-12: the round wind, the counters and the riichi bets on the table
      $("next-title").textContent = game ? `${handLabel(game.passes)} · hand ${next}` : `Hand ${next}`;
      $("next-dealer").textContent = game
        ? `Dealer: ${this.nameOf(dealer)} · ${game.counters} counter${game.counters === 1 ? "" : "s"} · ${game.bets / RIICHI_BET} riichi bet${game.bets === RIICHI_BET ? "" : "s"} on the table`
        : "Waiting for the server to replay the game";
    }
    dealButton.hidden = false;
    const deal = this.dealOf(segment, next);
    const dealt = deal && deal.state !== "refused";
    dealButton.textContent = dealt ? `Dealt ✓ ${clockText(deal.time)}` : `Tiles dealt · hand ${next}`;
    dealButton.classList.toggle("done", Boolean(dealt));
    dealButton.dataset.hand = String(next);
    dealButton.dataset.dealt = deal?.state ?? "";
    const timing = this.timing(segment);
    const now = this.clock.now();
    const late = !dealt && timing.timed && timing.deadline !== null && now > timing.deadline;
    const early = !dealt && timing.startsAt !== null && now < timing.startsAt;
    dealButton.disabled = late || early;
    let note = "";
    if (late) {
      note = `The time limit passed at ${clockText(timing.deadline)}: no new hand may start (rule CL-3).`;
    } else if (early) {
      note = `This ${this.who.segment_kind} starts at ${clockText(timing.startsAt)}; to start sooner, record an early start that all four players agree to (rule CL-2).`;
    } else if (deal?.state === "other device") {
      note = `Hand ${next} was dealt at ${clockText(deal.time)}, recorded on another device at this table.`;
    } else if (deal?.state === "queued") {
      note = `${deal.entry.auto ? "Deal recorded when you started entering the hand" : "Deal recorded"} at ${clockText(deal.time)}, by this tablet's clock; it goes to the server as soon as the network allows.`;
    } else if (deal?.state === "sent" || deal?.state === "server") {
      note = `Deal of hand ${next} recorded at ${clockText(deal.time)}${deal.entry?.auto ? ", when you started entering the hand" : ""}.`;
    }
    $("deal-note").textContent = note;
  }

  // rule AA-15: who took the riichi bets left on the table at the end of the game
  leftoverText(segment) {
    const end = this.isAriAri() ? this.gameEnd(segment) : null;
    if (!end?.bets) return "";
    const shares = Object.entries(end.players)
      .filter(([, row]) => row.bets)
      .map(([p, row]) => `${this.nameOf(p)} ${row.bets.toLocaleString("en")}`);
    return `. Riichi bets left on the table, ${end.bets.toLocaleString("en")}: ${shares.join(", ")} (rule AA-15)`;
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

  renderSeatCards(segment) {
    const next = this.nextHand(segment) ?? this.who.hands_per_segment;
    const seats = this.cycleSeats(segment, next);
    const dealer = this.nextHand(segment) === null ? null : this.dealerOf(segment, next);
    const { totals } = this.totals(segment);
    const end = this.isAriAri() ? this.gameEnd(segment) : null;
    if (this.isAriAri()) {
      // An Ari Ari table counts points from the start (rule AA-1), as the players' sticks do;
      // the leftover bets and uma of a game that has ended are in its result, not its points.
      for (const p of Object.keys(totals)) totals[p] += this.who.game.start_points - (end?.extra[p] ?? 0);
    }
    $("seat-cards").replaceChildren(
      ...seats.map((player, index) =>
        el(
          "li",
          {
            class: `seat-card${String(player) === String(dealer) ? " dealer" : ""}`,
            dataset: { seat: SEAT_NAMES[index] },
          },
          el("span", {
            class: "wind",
            text: this.isAriAri() && dealer !== null ? this.windOf(segment, next, player) : WIND[SEAT_NAMES[index]],
          }),
          el("span", {
            class: "score num",
            text: this.isAriAri()
              ? (totals[String(player)] ?? 0).toLocaleString("en")
              : signed(totals[String(player)] ?? 0),
          }),
          el("span", { class: "name", text: this.nameOf(player) }),
          el("span", { class: "pid", text: String(player) }),
          end?.players[String(player)] ? this.aaResultLine(end.players[String(player)]) : null,
          String(player) === String(dealer) ? el("span", { class: "dealer-mark", text: "deals" }) : null,
        ),
      ),
    );
  }

  // rules AA-15 to AA-17: a player's place, leftover bets, uma and result once the game ended
  aaResultLine(row) {
    const points = (n) => `${n > 0 ? "+" : n < 0 ? "−" : ""}${Math.abs(n).toLocaleString("en")}`;
    const parts = [`${ordinal(row.place)}`];
    if (row.bets) parts.push(`bets ${points(row.bets)}`);
    parts.push(`uma ${points(row.uma)}`, `result ${points(row.result)}`);
    return el("span", { class: "pid aa-result", text: parts.join(" · ") });
  }

  renderHands(segment) {
    const players = this.seatsOf(segment);
    const table = $("hands");
    table.tHead.replaceChildren(
      el(
        "tr",
        {},
        el("th", { scope: "col", class: "num", text: "#" }),
        el("th", { scope: "col", text: "Value" }),
        ...players.map((p) => el("th", { scope: "col", class: "num", text: this.nameOf(p) })),
        el("th", { scope: "col", text: "" }),
      ),
    );
    const { running } = this.totals(segment);
    const end = this.isAriAri() ? this.gameEnd(segment) : null;
    const endRows = [];
    if (end) {
      const last = running.find((row) => row.hand === end.hand && !row.voided && row.deltas);
      if (last) {
        // rules AA-15, AA-16: the leftover bets and the uma on a row of their own
        const without = (values) =>
          Object.fromEntries(Object.entries(values).map(([p, v]) => [p, v - (end.extra[p] ?? 0)]));
        endRows.push({ ...last, state: "server", gameEnd: true, deltas: end.extra, totals: last.totals });
        last.deltas = without(last.deltas);
        last.totals = without(last.totals);
      }
    }
    table.tBodies[0].replaceChildren(
      ...[...running, ...endRows].map((row) => {
        const dealer = String(row.dealer ?? this.dealerOf(segment, row.hand));
        return el(
          "tr",
          {
            class: `hand-row state-${row.state.replace(/ /g, "-")}${row.voided ? " voided" : ""}`,
            dataset: { hand: String(row.hand), state: row.state, ...(row.gameEnd ? { end: "game" } : {}) },
          },
          el("th", { scope: "row", class: "num", text: row.gameEnd ? "" : String(row.hand) }),
          el("td", {
            class: "value",
            text: row.voided
              ? "void"
              : row.gameEnd
                ? `Game end: ${end.bets ? "bets and " : ""}uma`
                : this.isAriAri()
                ? this.shortResult(row.result)
                : (row.value ?? (row.deltas && sumOfAbs(row.deltas) === 0 ? "draw" : "–")),
          }),
          ...players.map((p) => {
            const delta = row.deltas?.[String(p)];
            return el(
              "td",
              {
                class: `num${String(p) === dealer ? " dealt" : ""}`,
                title: String(p) === dealer ? "dealer" : undefined,
              },
              el("span", {
                class: `delta ${delta > 0 ? "up" : delta < 0 ? "down" : ""}`,
                text: this.deltaText(delta),
              }),
              el("span", {
                class: "running",
                text: this.isAriAri()
                  ? (row.totals[String(p)] + this.who.game.start_points).toLocaleString("en")
                  : signed(row.totals[String(p)]),
              }),
            );
          }),
          el(
            "td",
            { class: "badge-cell" },
            row.state === "server"
              ? ""
              : el("span", { class: `badge ${row.state.split(" ").pop()}`, text: row.state }),
          ),
        );
      }),
    );
    if (!running.length) {
      table.tBodies[0].append(
        el("tr", {}, el("td", { colspan: String(players.length + 3), class: "empty", text: "No hands yet" })),
      );
    }
    table.tFoot.replaceChildren(
      el(
        "tr",
        {},
        el("td", {
          colspan: String(players.length + 3),
          class: "note",
          text: this.isAriAri()
            ? end
              ? "Each cell: the hand's point change (riichi bets included), and below it the player's points; the game end's row: the leftover bets and uma, and below it start + result. The bar marks who dealt."
              : "Each cell: the hand's point change (riichi bets included), and below it the player's points. The bar marks who dealt."
            : "Each cell: the hand's point change, and below it the running total in this segment. The bar marks who dealt.",
        }),
      ),
    );
  }

  counts() {
    const counts = { queued: 0, sent: 0, refused: 0 };
    for (const entry of this.entries) counts[entry.status] = (counts[entry.status] ?? 0) + 1;
    return counts;
  }

  renderOutbox() {
    const counts = this.counts();
    for (const node of document.querySelectorAll("#outbox-summary [data-count]")) {
      node.textContent = String(counts[node.dataset.count]);
    }
    const summary = $("outbox-summary");
    summary.classList.toggle("has-queued", counts.queued > 0);
    summary.classList.toggle("has-refused", counts.refused > 0);
    $("outbox-note").textContent = this.tokenProblem
      ? `The server does not accept this tablet's token: ${this.tokenProblem}`
      : counts.refused
        ? `${counts.queued} waiting behind a refused entry: say what to do with it first.`
        : counts.queued
        ? `${counts.queued} waiting for the server; sent again every ${RETRY_EVERY_MS / 1000} s and as soon as the network returns.`
        : "";
    const list = $("outbox-list");
    list.replaceChildren(
      ...[...this.entries].reverse().map((entry) =>
        el(
          "li",
          { class: `outbox-entry ${entry.status}`, dataset: { key: entry.key, status: entry.status } },
          el("span", { class: `badge ${entry.status}`, text: entry.status }),
          el("span", { class: "what", text: this.describe(entry) }),
          el("span", { class: "key", text: entry.key.slice(0, 8) }),
          entry.status === "refused" ? el("span", { class: "error", text: entry.error }) : null,
          entry.status === "queued" && entry.lastError
            ? el("span", { class: "note", text: `${entry.attempts} attempt(s): ${entry.lastError}` })
            : null,
          el("span", { class: "note", text: clockText(entry.time ?? entry.created) }),
        ),
      ),
    );
  }

  describe(entry) {
    const body = entry.body;
    const kind = capitalised(this.who?.segment_kind ?? "segment");
    const where = `${kind} ${body.segment} hand ${body.hand}`;
    if (entry.endpoint === "deals") {
      const how = entry.redealt ? " (recorded anew after a refusal)" : entry.auto ? " (when the entry began)" : "";
      return `${where}: tiles dealt at ${clockText(body.time)}${how}`;
    }
    if (entry.endpoint === "early-starts") return `${kind} ${body.segment}: early start at ${clockText(body.time)}, all four agreeing`;
    if (entry.endpoint === "seats") {
      const seats = body.seats.map((p, i) => `${WIND[SEAT_NAMES[i]]} ${this.nameOf(p)}`).join(", ");
      return `${kind} ${body.segment}: seats ${seats}`;
    }
    if (entry.endpoint === "voids") return `${where}: void (${body.reason})`;
    const result = body.result;
    let what = KIND_NAMES[result.kind];
    if (this.isAriAri()) what = this.longResult(result);
    else if (result.kind === "self_draw") what += ` ${result.value} by ${this.nameOf(result.winner)}`;
    if (result.kind === "discard") {
      what += ` ${result.value}: ${this.nameOf(result.winner)} from ${this.nameOf(result.discarder)}`;
    }
    if (entry.endpoint === "corrections") return `${where}: correction to ${what} (${body.reason})`;
    return `${where}: ${what}`;
  }

  // An Ari Ari win as the players say it: "3 fan 30 fu", "mangan".
  winText(win) {
    if (win.limit) return win.limit;
    return win.fu ? `${win.fan} fan ${win.fu} fu` : `${win.fan} fan`;
  }

  shortResult(result) {
    if (!result) return "–";
    if (result.kind === "ron") return `Ron ${result.wins.map((w) => this.winText(w)).join(" + ")}`;
    if (result.kind === "tsumo") return `Tsumo ${this.winText(result)}`;
    if (result.kind === "exhaustive_draw") return `Draw · ${(result.tenpai ?? []).length} tenpai`;
    return KIND_NAMES[result.kind] ?? result.kind;
  }

  longResult(result) {
    const names = (players) => (players ?? []).map((p) => this.nameOf(p)).join(", ");
    let what;
    if (result.kind === "ron") {
      const wins = result.wins.map((w) => `${this.nameOf(w.winner)} ${this.winText(w)}, ${w.yaku} yaku`);
      what = `Ron on ${this.nameOf(result.discarder)}'s discard: ${wins.join("; ")}`;
    } else if (result.kind === "tsumo") {
      what = `Tsumo by ${this.nameOf(result.winner)}: ${this.winText(result)}, ${result.yaku} yaku`;
    } else if (result.kind === "exhaustive_draw") {
      what = `Exhaustive draw, tenpai: ${names(result.tenpai) || "nobody"}`;
    } else {
      what = `Chombo by ${this.nameOf(result.offender)}`;
    }
    if (result.riichi?.length) what += `; riichi: ${names(result.riichi)}`;
    if (result.dead?.length) what += `; dead hand: ${names(result.dead)}`;
    return what;
  }

  renderTabs() {
    for (const button of document.querySelectorAll("#tabs [data-tab]")) {
      button.setAttribute("aria-pressed", String(button.dataset.tab === this.tab));
    }
    for (const panel of document.querySelectorAll(".action-view .panel")) {
      panel.hidden = panel.dataset.panel !== this.tab;
    }
    this.syncHistory();
  }

  // The browser's back button goes back inside the tablet (from the review to the form, from
  // another tab to the hand) instead of leaving the page with a hand half entered: once the
  // judge is anywhere but an empty hand form, the page holds one history entry of its own,
  // which the back button takes (never the page itself: a step back of its own would race
  // the judge's taps). On an empty form it is simply spent, and the next back leaves.
  syncHistory() {
    const inside = this.tab !== "hand" || this.draft.kind !== null;
    if (inside && !this.historyPushed) {
      history.pushState({ judge: "inside" }, "");
      this.historyPushed = true;
    }
  }

  onBack() {
    this.historyPushed = false;
    if (this.tab === "review") {
      this.pendingSend = null;
      this.tab = this.voidHand ? "fix" : "hand";
    } else if (this.tab !== "hand") {
      this.tab = "hand";
    } else if (this.draft.kind !== null) {
      this.entryNotice = "The back button keeps the hand being entered: tap “Clear” to start it again.";
    }
    this.render();
  }

  showTab(tab) {
    this.tab = tab;
    if (tab === "seats") this.drawSeats = null;
    this.render();
  }

  // ---- entering a hand ----

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

  renderEntry() {
    const draft = this.draft;
    const { segment, hand } = this.draftTarget();
    const seatsNeeded = this.seatsOf(segment).length === 4;
    const title =
      draft.mode === "correction"
        ? `Correct hand ${hand}`
        : draft.mode === "reenter"
          ? `Enter voided hand ${hand}`
          : hand === null
            ? "No hand to enter"
            : `Result of hand ${hand}`;
    $("entry-title").textContent = title;
    $("entry-notice").textContent = this.entryNotice;
    $("entry-reason-row").hidden = draft.mode !== "correction";
    for (const button of document.querySelectorAll("#outcomes [data-kind]")) {
      button.setAttribute("aria-pressed", String(button.dataset.kind === draft.kind));
      button.disabled = hand === null || !seatsNeeded;
    }
    const cycle = hand === null ? [] : this.cycleSeats(segment, hand);
    const seatButtons = (role, selected, disabled) =>
      cycle.map((player, index) =>
        el(
          "button",
          {
            type: "button",
            class: "seat-button",
            "aria-pressed": String(selected(player)),
            disabled: disabled(player),
            dataset: { player: String(player), seat: SEAT_NAMES[index] },
            onclick: () => this.pick(role, player),
          },
          el("span", { class: "wind", text: WIND[SEAT_NAMES[index]] }),
          el("span", { class: "name", text: this.nameOf(player) }),
          role === "points"
            ? el("span", { class: "num points-value", text: draft.deltas[String(player)] ?? "0" })
            : null,
        ),
      );
    const same = (a, b) => a !== null && String(a) === String(b);
    document.querySelector('[data-role="winner"]').replaceChildren(
      ...seatButtons(
        "winner",
        (p) => same(draft.winner, p),
        () => false,
      ),
    );
    document.querySelector('[data-role="discarder"]').replaceChildren(
      ...seatButtons(
        "discarder",
        (p) => same(draft.discarder, p),
        (p) => same(draft.winner, p),
      ),
    );
    document.querySelector('[data-role="points"]').replaceChildren(
      ...seatButtons(
        "points",
        (p) => same(draft.typing, p),
        () => false,
      ),
    );
    const kind = draft.kind;
    const ariAri = this.isAriAri();
    $("outcomes").hidden = ariAri;
    $("aa-outcomes").hidden = !ariAri;
    $("aa-entry").hidden = !ariAri;
    if (ariAri) {
      for (const button of document.querySelectorAll("#aa-outcomes [data-aa-kind]")) {
        button.setAttribute("aria-pressed", String(button.dataset.aaKind === kind));
        button.disabled = hand === null || !seatsNeeded;
      }
      for (const id of ["pick-winner", "pick-discarder", "pick-points", "value-row"]) $(id).hidden = true;
      this.renderAriAriEntry(segment, hand);
      const { problem } = this.draftResult();
      $("entry-problem").textContent = kind ? (problem ?? "") : "";
      $("entry-review").disabled = Boolean(problem) || hand === null;
      return;
    }
    $("pick-winner").hidden = !(kind === "self_draw" || kind === "discard");
    $("pick-discarder").hidden = kind !== "discard";
    $("pick-points").hidden = kind !== "points";
    $("value-row").hidden = !(kind === "self_draw" || kind === "discard" || kind === "points");
    $("key-sign").disabled = kind !== "points";
    if (kind === "points") {
      $("value-label").textContent = draft.typing === null ? "Tap a seat" : `${this.nameOf(draft.typing)}`;
      $("value-display").textContent =
        draft.typing === null ? "–" : draft.deltas[String(draft.typing)] || "0";
    } else {
      $("value-label").textContent = `Value (${this.who.min_value}–${this.who.max_value})`;
      $("value-display").textContent = draft.value || "–";
    }
    const { problem } = this.draftResult();
    $("entry-problem").textContent = draft.kind ? (problem ?? "") : "";
    $("entry-review").disabled = Boolean(problem) || hand === null;
  }

  pick(role, player) {
    const draft = this.draft;
    if (role === "winner") {
      draft.winner = player;
      if (String(draft.discarder) === String(player)) draft.discarder = null;
    } else if (role === "discarder") {
      draft.discarder = player;
    } else {
      draft.typing = player;
    }
    this.renderEntry();
  }

  key(key) {
    const draft = this.draft;
    if (draft.kind === "points") {
      if (draft.typing === null) return;
      const id = String(draft.typing);
      let text = draft.deltas[id] ?? "";
      if (key === "back") text = text.slice(0, -1);
      else if (key === "sign") text = text.startsWith("-") ? text.slice(1) : `-${text}`;
      else if (text.replace("-", "").length < 5) text = text === "0" ? key : text + key;
      draft.deltas[id] = text === "-" ? "-" : text.replace(/^(-?)0+(\d)/, "$1$2");
    } else if (key === "back") {
      draft.value = draft.value.slice(0, -1);
    } else if (key !== "sign" && draft.value.length < 3) {
      draft.value = (draft.value + key).replace(/^0+/, "");
    }
    this.renderEntry();
  }

  // The result the draft describes, or the problem that keeps it from review.
  draftResult() {
    const draft = this.draft;
    const { segment, hand } = this.draftTarget();
    const players = this.seatsOf(segment);
    if (hand === null) return { problem: "This segment has all its hands." };
    if (players.length !== 4) return { problem: "The seats are not known yet." };
    if (draft.mode === "new") {
      // rule CL-3: a new hand of a timed segment goes only with its deal
      const missing = this.dealProblem(segment, hand);
      if (missing) return { problem: missing };
    }
    if (!draft.kind) return { problem: "Pick the outcome." };
    if (draft.mode === "correction" && !draft.reason.trim()) {
      return { problem: "Say why the hand is corrected." };
    }
    if (this.isAriAri()) return this.ariAriResult(segment, hand);
    if (draft.kind === "draw") return { result: { kind: "draw" } };
    if (draft.kind === "points") {
      const deltas = {};
      for (const p of players) {
        const text = draft.deltas[String(p)] ?? "0";
        if (!/^-?\d+$/.test(text)) return { problem: `Enter a number for ${this.nameOf(p)}.` };
        deltas[String(p)] = Number(text);
      }
      const total = sumOf(deltas);
      if (total !== 0)
        return { problem: `The point changes sum to ${total}; they must sum to 0 (rule HS-7).` };
      return { result: { kind: "points", deltas } };
    }
    if (draft.winner === null) return { problem: "Tap the winner's seat." };
    if (draft.kind === "discard" && draft.discarder === null) return { problem: "Tap the discarder's seat." };
    const value = Number(draft.value);
    if (!draft.value) return { problem: "Enter the hand's value." };
    if (value < this.who.min_value || value > this.who.max_value) {
      return {
        problem: `A winning hand is worth ${this.who.min_value} to ${this.who.max_value} (rule HS-3).`,
      };
    }
    const result = { kind: draft.kind, winner: draft.winner, value };
    if (draft.kind === "discard") result.discarder = draft.discarder;
    return { result };
  }

  review() {
    const { result, problem } = this.draftResult();
    if (problem) return;
    const { segment, hand } = this.draftTarget();
    const game = this.isAriAri() ? this.gameBefore(segment, hand) : null;
    const played = game && playHand(result, game);
    const deltas = this.isAriAri() ? (played?.deltas ?? null) : handDeltas(result, this.seatsOf(segment));
    this.pendingSend = {
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
    this.showReview(segment, hand, deltas, this.pendingSend);
  }

  showReview(segment, hand, deltas, pending) {
    const cycle = this.isAriAri() ? this.seatsOf(segment) : this.cycleSeats(segment, hand);
    $("review-title").textContent =
      pending.endpoint === "voids"
        ? `Void hand ${hand}?`
        : pending.endpoint === "corrections"
          ? `Correct hand ${hand}?`
          : `Send hand ${hand}?`;
    $("review-summary").textContent = this.describe({ endpoint: pending.endpoint, body: pending.body });
    if (pending.gameEnds) {
      // rules AA-15, AA-16: the judge hears before sending that the game ends here
      const bets = pending.betsLeft
        ? `the ${pending.betsLeft.toLocaleString("en")} in riichi bets left on the table go to first place, and `
        : "";
      $("review-summary").append(
        el("span", {
          class: "aa-game-ends",
          text: ` This hand ends the game: ${END_WORDS[pending.gameEnds]} (rule ${pending.gameEnds}); ${bets}the uma is added after it.`,
        }),
      );
    }
    $("review-table").tBodies[0].replaceChildren(
      ...cycle.map((player, index) => {
        const delta = deltas?.[String(player)] ?? 0;
        return el(
          "tr",
          { dataset: { player: String(player) } },
          el("th", {
            scope: "row",
            text: this.isAriAri() ? this.windOf(segment, hand, player) : WIND[SEAT_NAMES[index]],
          }),
          el("td", { text: this.nameOf(player) }),
          el("td", {
            class: `num delta ${delta > 0 ? "up" : delta < 0 ? "down" : ""}`,
            text: deltas ? this.deltaText(delta) : "–",
          }),
        );
      }),
    );
    if (pending.tableBets !== undefined) {
      $("review-table").tBodies[0].append(
        el(
          "tr",
          { class: "table-bets", dataset: { player: "table" } },
          el("th", { scope: "row", text: "" }),
          el("td", { text: "Riichi bets on the table" }),
          el("td", { class: "num delta", text: this.deltaText(pending.tableBets) }),
        ),
      );
    }
    const total = deltas ? sumOf(deltas) + (pending.tableBets ?? 0) : 0;
    $("review-sum").textContent = !deltas
      ? "the server replays the game"
      : total === 0
        ? "0 ✓"
        : String(total);
    $("review-reason").textContent = pending.body.reason ? `Reason: ${pending.body.reason}` : "";
    $("review-send").textContent = pending.endpoint === "voids" ? "Void it" : "Send";
    this.tab = "review";
    this.renderTabs();
  }

  async confirmSend() {
    const pending = this.pendingSend;
    if (!pending) return;
    this.pendingSend = null;
    this.draft = this.emptyDraft();
    this.voidHand = null;
    this.tab = "hand";
    await this.queue(pending.endpoint, pending.body);
  }

  // Keeps one entry in the outbox (on the tablet before anything goes out), then sends.
  // A deal or an early start gets this tablet's time of it, and the clock correction used,
  // so that its `sent` is read on the same corrected clock (rule CL-6).
  async queue(endpoint, body, extra = {}) {
    const now = this.clock.now();
    // `created` orders the outbox: it must never run backwards, even if the clock is set back
    this.lastCreated = Math.max(Date.now(), this.lastCreated + 1, ...this.entries.map((e) => e.created + 1));
    const entry = {
      key: newKey(), // also the Idempotency-Key: made once, here, before the first try
      endpoint,
      tournament: this.who.tournament,
      body: TIMED_ENDPOINTS.has(endpoint) ? { ...body, time: isoTime(now) } : body,
      status: "queued",
      created: this.lastCreated,
      order: this.entries.length,
      attempts: 0,
      lastError: null,
      time: isoTime(now), // this tablet's time of the entry, shown in the outbox
      offsetMs: this.clock.offsetMs,
      // the page's monotonic clock at that moment: a `sent` measured from it is immune to
      // the tablet's clock being set (by hand, or by the system) between then and sending
      page: performance.timeOrigin,
      mono: performance.now(),
      ...extra,
    };
    await this.outbox.put(entry);
    this.entries.push(entry);
    this.entries.sort((a, b) => a.created - b.created || a.order - b.order);
    this.render();
    this.flush();
    return entry;
  }

  // ---- entering an Ari Ari hand ----

  // A row of the table's four seats for one role of the hand; `multi` roles toggle.
  aaSeatRow(label, role, segment, hand, { selected, disabled = () => false, tap }) {
    const seats = this.seatsOf(segment);
    return choiceGroup(
      label,
      "seats-row",
      { role },
      seats.map((player) =>
        el(
          "button",
          {
            type: "button",
            class: "seat-button",
            "aria-pressed": String(selected(String(player))),
            disabled: disabled(String(player)),
            dataset: { player: String(player) },
            onclick: () => {
              tap(String(player));
              this.renderEntry();
            },
          },
          el("span", { class: "wind", text: this.windOf(segment, hand, player) }),
          el("span", { class: "name", text: this.nameOf(player) }),
        ),
      ),
    );
  }

  // One winner's hand: fan and fu, or a limit (rule AA-2), and the yaku (rules AA-7, AA-20).
  aaWinCard(player) {
    const win = this.draft.wins[player];
    const stepper = (label, field, min, max) =>
      el(
        "div",
        { class: "stepper", dataset: { field } },
        el("span", { class: "pick-label", text: label }),
        el("button", {
          type: "button",
          text: "−",
          "aria-label": `fewer ${label}`,
          disabled: (win[field] ?? min) <= min,
          onclick: () => {
            win[field] = Math.max(min, (win[field] ?? min) - 1);
            if (field === "fan") win.limit = null;
            this.renderEntry();
          },
        }),
        el("output", { class: "num", text: win[field] === null ? "–" : String(win[field]) }),
        el("button", {
          type: "button",
          text: "+",
          "aria-label": `more ${label}`,
          disabled: (win[field] ?? 0) >= max,
          onclick: () => {
            win[field] = Math.min(max, (win[field] ?? 0) + 1);
            if (field === "fan") win.limit = null;
            this.renderEntry();
          },
        }),
      );
    const choices = (label, field, values, text = String) =>
      choiceGroup(
        label,
        "small-choices",
        { field },
        values.map((value) =>
          el("button", {
            type: "button",
            text: text(value),
            "aria-pressed": String(win[field] === value),
            dataset: { value: String(value) },
            onclick: () => {
              win[field] = win[field] === value ? null : value;
              if (field === "limit" && value !== null) win.fan = null;
              this.renderEntry();
            },
          }),
        ),
      );
    const needsFu = !win.limit && (win.fan ?? 0) < 5;
    const base = basePoints(win);
    return el(
      "div",
      { class: "win-card", dataset: { winner: player } },
      el("h3", { text: `${this.nameOf(player)}${base === null ? "" : ` · base ${base.toLocaleString("en")}`}` }),
      el("div", { class: "steppers" }, stepper("fan", "fan", 1, 13), stepper("yaku", "yaku", 1, 20)),
      needsFu ? choices("fu", "fu", VALID_FU) : null,
      choices("or a limit", "limit", Object.keys(LIMITS)),
    );
  }

  renderAriAriEntry(segment, hand) {
    const draft = this.draft;
    const game = hand === null ? null : this.gameBefore(segment, hand);
    const toggle = (list, player) => {
      const at = list.indexOf(player);
      if (at < 0) list.push(player);
      else list.splice(at, 1);
    };
    const rows = [];
    if (draft.kind === "ron") {
      rows.push(
        this.aaSeatRow("Discarder", "aa-discarder", segment, hand, {
          selected: (p) => draft.discarder === p,
          tap: (p) => {
            draft.discarder = p;
            if (draft.winners.includes(p)) toggle(draft.winners, p);
          },
        }),
        this.aaSeatRow("Winners (one or more, rule AA-4)", "aa-winners", segment, hand, {
          selected: (p) => draft.winners.includes(p),
          disabled: (p) => p === draft.discarder,
          tap: (p) => {
            toggle(draft.winners, p);
            draft.wins[p] ??= newWin();
          },
        }),
      );
    } else if (draft.kind === "tsumo") {
      rows.push(
        this.aaSeatRow("Winner", "aa-winners", segment, hand, {
          selected: (p) => draft.winners.includes(p),
          tap: (p) => {
            draft.winners = [p];
            draft.wins[p] ??= newWin();
          },
        }),
      );
    } else if (draft.kind === "exhaustive_draw") {
      rows.push(
        this.aaSeatRow("Tenpai (rule AA-9)", "aa-tenpai", segment, hand, {
          selected: (p) => draft.tenpai.includes(p),
          tap: (p) => toggle(draft.tenpai, p),
        }),
      );
    } else if (draft.kind === "chombo") {
      rows.push(
        this.aaSeatRow("Offender (rule AA-10)", "aa-offender", segment, hand, {
          selected: (p) => draft.offender === p,
          tap: (p) => {
            draft.offender = p;
          },
        }),
      );
    }
    const cards = draft.kind === "ron" || draft.kind === "tsumo" ? draft.winners.map((p) => this.aaWinCard(p)) : [];
    const facts = draft.kind
      ? [
          this.aaSeatRow("Riichi declared this hand (1,000 each, rule AA-5)", "aa-riichi", segment, hand, {
            selected: (p) => draft.riichi.includes(p),
            tap: (p) => toggle(draft.riichi, p),
          }),
          this.aaSeatRow("Dead hand (rule AA-11)", "aa-dead", segment, hand, {
            selected: (p) => draft.dead.includes(p),
            tap: (p) => toggle(draft.dead, p),
          }),
        ]
      : [];
    const state = game
      ? el("p", {
          class: "note",
          text: `${handLabel(game.passes)} · ${game.counters} counter${game.counters === 1 ? "" : "s"} · ${game.bets.toLocaleString("en")} in riichi bets on the table`,
        })
      : null;
    $("aa-entry").replaceChildren(...[state, ...rows, ...cards, ...facts].filter(Boolean));
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
        return { problem: `${this.nameOf(player)} has ${points} points: a riichi needs 1,000 (rule AA-18).` };
      }
    }
    const winOf = (player) => {
      const win = draft.wins[player];
      if (draft.dead.includes(player)) return { problem: `${this.nameOf(player)} has a dead hand and cannot win (rule AA-11).` };
      if (!win.limit && !win.fan) return { problem: `Enter ${this.nameOf(player)}'s fan or a limit (rule AA-2).` };
      if (!win.limit && win.fan < 5 && !win.fu) return { problem: `Tap ${this.nameOf(player)}'s fu (rule AA-19).` };
      if (game && game.counters >= TWO_YAKU_COUNTERS && win.yaku < 2) {
        return { problem: `${game.counters} counters are on the table: ${this.nameOf(player)} needs 2 yaku (rule AA-7).` };
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
      if (draft.discarder === null) return { problem: "Tap the discarder's seat." };
      if (!draft.winners.length) return { problem: "Tap the winner's seat (several for a multiple ron)." };
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
      if (!draft.winners.length) return { problem: "Tap the winner's seat." };
      const { win, problem } = winOf(draft.winners[0]);
      if (problem) return { problem };
      return { result: { kind: "tsumo", ...win, ...facts } };
    }
    if (draft.kind === "exhaustive_draw") {
      const dead = draft.tenpai.find((p) => draft.dead.includes(p));
      if (dead) return { problem: `${this.nameOf(dead)} has a dead hand and cannot be tenpai (rule AA-11).` };
      return { result: { kind: "exhaustive_draw", tenpai: [...draft.tenpai], ...facts } };
    }
    if (draft.offender === null) return { problem: "Tap the offender's seat." };
    return { result: { kind: "chombo", offender: draft.offender, ...facts } };
  }

  // ---- the outbox ----

  async flush() {
    if (this.flushing) {
      this.flushAgain = true;
      return;
    }
    this.flushing = true;
    try {
      do {
        this.flushAgain = false;
        this.entries = await this.outbox.all();
        for (const entry of this.entries) {
          if (entry.status === "sent") continue;
          // A refused entry stops the ones after it until the judge decides (the hand after
          // a refused deal would be refused too): they wait here, nothing is lost.
          if (entry.status === "refused") break;
          // Stop at the first entry still waiting: the next hand depends on this one.
          if (!(await this.send(entry)) || entry.status === "refused") break;
        }
      } while (this.flushAgain);
      await this.prune();
    } finally {
      this.flushing = false;
      this.render();
    }
  }

  // Sends one entry; true if the server settled it (sent or refused), false to try later.
  async send(entry) {
    let response;
    entry.attempts += 1;
    // A deal or an early start says this tablet's clock as it sends it, corrected as its
    // time was: the server checks the correction against its own clock (rule CL-6).
    const body = TIMED_ENDPOINTS.has(entry.endpoint) ? { ...entry.body, sent: isoTime(this.sentTime(entry)) } : entry.body;
    try {
      response = await this.api("POST", `/api/tournaments/${entry.tournament}/${entry.endpoint}`, body, {
        "Idempotency-Key": entry.key,
      });
    } catch {
      entry.lastError = navigator.onLine ? "the server does not answer" : "no network";
      await this.outbox.put(entry);
      return false;
    }
    const answer = await response.json().catch(() => null);
    let settled = true;
    if (response.ok) {
      entry.status = "sent";
      entry.answer = answer;
      entry.sentAt = Date.now();
      entry.lastError = null;
      this.tokenProblem = null;
    } else if (response.status === 409 && answer?.field === "Idempotency-Key") {
      entry.lastError = "the server is still entering it"; // the first try is in progress
      settled = false;
      setTimeout(() => this.flush(), IN_PROGRESS_RETRY_MS);
    } else if (response.status === 401) {
      this.tokenProblem = answer?.detail ?? "401";
      entry.lastError = "token not accepted";
      settled = false;
    } else if (response.status === 429) {
      // Over a rate limit (issue 14): not a refusal of the entry. Sent again when the
      // server says, and the entries behind it wait, in order.
      const seconds = Number(response.headers.get("Retry-After")) || RETRY_EVERY_MS / 1000;
      entry.lastError = `the server asks to wait ${seconds} s`;
      settled = false;
      setTimeout(() => this.flush(), seconds * 1000);
    } else if (response.status >= 400 && response.status < 500) {
      entry.status = "refused";
      entry.error = answer?.detail ?? `the server refused it (HTTP ${response.status})`;
      entry.rule = answer?.rule ?? null;
      entry.field = answer?.field ?? null;
      entry.refusedAt = Date.now();
      entry.startsAtThen = this.serverTable(entry.body.segment)?.clock?.starts_at ?? null;
    } else {
      entry.lastError = `server error (HTTP ${response.status})`;
      settled = false;
    }
    await this.outbox.put(entry);
    if (settled && this.who && ["corrections", "voids", "seats"].includes(entry.endpoint)) this.loadWhoAmI();
    return settled;
  }

  // This tablet's clock now, read as the entry's time was: its time plus the time since, by
  // the page's monotonic clock while the page has not been reloaded, else the clock with the
  // correction the entry was stamped with. Either way an error in the entry's time is in
  // `sent` too, and the server sees it against its own clock (rule CL-6).
  sentTime(entry) {
    if (entry.page === performance.timeOrigin && Number.isFinite(entry.mono)) {
      return Date.parse(entry.body.time ?? entry.time) + (performance.now() - entry.mono);
    }
    return Date.now() + (entry.offsetMs ?? this.clock.offsetMs);
  }

  async prune() {
    const sent = this.entries.filter((e) => e.status === "sent");
    for (const entry of sent.slice(0, Math.max(0, sent.length - KEEP_SENT))) {
      await this.outbox.remove(entry.key);
    }
    this.entries = await this.outbox.all();
  }

  async retry(entry) {
    entry.status = "queued";
    entry.error = null;
    entry.rule = null;
    entry.field = null;
    await this.outbox.put(entry);
    this.render();
    this.flush();
  }

  async discard(entry) {
    if (!confirm(`Discard this entry? ${this.describe(entry)}. It was refused: ${entry.error}`)) return;
    await this.outbox.remove(entry.key);
    this.entries = await this.outbox.all();
    this.render();
    this.flush(); // the entries after it go on
  }

  // ---- a refused entry: what happened and what to do, in the judge's words ----

  firstRefused() {
    return this.entries.find((e) => e.status === "refused") ?? null;
  }

  explainRefusal(entry) {
    const body = entry.body;
    const kind = this.who?.segment_kind ?? "segment";
    const rule = entry.rule;
    const clock = "This tablet's clock was more than 30 seconds off the server's when it sent it, so the server cannot trust the time this tablet gave it";
    const headJudge = "Call the head judge: they record it by hand, with its time and a reason. This tablet sends it again by itself once it is in, then the entries after it.";
    // A deal refused or missing while the time limit has not passed can be recorded anew,
    // at the time it is now: never earlier than the real deal, so never unfair (rule CL-3).
    const dealNow = this.canDealNow(body.segment, body.hand);
    const orNow = dealNow
      ? ` The time limit has not passed: “Record the deal now” records it at ${clockText(this.clock.now())}, later than the tiles were really dealt, and the entries after it go on.`
      : "";
    const nowOrHeadJudge = dealNow
      ? `The time limit has not passed: tap “Record the deal now” to record the deal at ${clockText(this.clock.now())}, later than the tiles were really dealt, and the entries after it go on. Or call the head judge to record it at its real time: this tablet then sends it again by itself.`
      : headJudge;
    const closed = rule === "CL-3" && entry.field === "segment";
    if (closed) {
      return {
        title: `${entry.endpoint === "deals" ? `The deal of hand ${body.hand}` : this.describe(entry)} was refused`,
        what: `The organizer has closed this ${kind}: it takes no new hand or deal (rule CL-3).`,
        next: "If the hand was played in time, call the head judge. Otherwise discard it.",
      };
    }
    if (entry.endpoint === "deals") {
      const title = `The deal of hand ${body.hand} was refused`;
      if (rule === "CL-6" && entry.field === "sent") {
        return { title, what: `${clock} (${clockText(body.time)} on this tablet, rule CL-6).`, next: nowOrHeadJudge, dealNow };
      }
      if (rule === "CL-3" && entry.field === "time") {
        return {
          title,
          what: `The tiles of hand ${body.hand} were dealt at ${clockText(body.time)}, after the time limit: no new hand may start after it (rule CL-3).`,
          next: `If they were dealt in time, call the head judge to record the deal. Otherwise discard it: this ${kind} is over for the table.`,
        };
      }
      if (rule === "CL-2") {
        return {
          title,
          what: `The deal at ${clockText(body.time)} is before this ${kind}'s start, and no early start is recorded (rule CL-2).`,
          next: dealNow
            ? `The ${kind} has started now: “Record the deal now” records the deal at ${clockText(this.clock.now())}, and the entries after it go on. Or call the head judge.`
            : "If all four players agreed to start early, record the early start, then send the deal again. Otherwise call the head judge, or discard it.",
          dealNow,
        };
      }
      return {
        title,
        what: `${this.reason(entry)}.`,
        next: `Call the head judge, or discard it.${orNow}`,
        dealNow,
      };
    }
    if (entry.endpoint === "early-starts") {
      const title = "The early start was refused";
      if (rule === "CL-6") return { title, what: `${clock} (rule CL-6).`, next: headJudge };
      const startsAt = this.serverTable(body.segment)?.clock?.starts_at;
      const minutes = this.who?.early_start_minutes;
      const what =
        rule === "CL-2" && entry.field === "time" && startsAt && /at most/.test(entry.error ?? "")
          ? `The early start at ${clockText(body.time)} is more than ${minutes} minutes before the scheduled start, ${clockText(startsAt)} (rule CL-2).`
          : `${this.reason(entry)}.`;
      return { title, what, next: "Discard it and start on the schedule, or call the head judge." };
    }
    if (entry.endpoint === "seats") {
      return {
        title: "The seats were refused",
        what: `${this.reason(entry)}.`,
        next: "Discard them and record the seats again on the Seats tab, or call the head judge.",
      };
    }
    const title = `Hand ${body.hand} was refused`;
    if (entry.endpoint === "hands" && rule === "CL-3" && /no recorded deal/.test(entry.error ?? "")) {
      if (dealNow) {
        return {
          title,
          what: `Hand ${body.hand} reached the server without its deal, and in a timed ${kind} every hand needs one (rule CL-3).`,
          next: `The time limit has not passed: “Record the deal now” records the deal at ${clockText(this.clock.now())}, and the hand goes after it. Or call the head judge to record it at the time the tiles were dealt.`,
          dealNow,
        };
      }
      return {
        title,
        what: `Hand ${body.hand} has no deal recorded before the time limit, and the limit has passed (rule CL-3).`,
        next: "If its tiles were dealt in time, call the head judge to record the deal: this tablet then sends the hand again by itself. Otherwise the hand does not count: discard it.",
      };
    }
    if (entry.endpoint === "hands" && /already entered/.test(entry.error ?? "")) {
      return {
        title,
        what: `Hand ${body.hand} is already entered at this table, from another tablet or device.`,
        next: "Compare it with the hands on the left. Discard this one; if this tablet's result was the right one, correct the hand (Correct / void) and give the reason.",
      };
    }
    return {
      title,
      what: `${this.reason(entry)}.`,
      next: "Discard it and enter it again as it should be, or send it again once the cause is fixed (the head judge can help).",
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

  // "Record the deal now": the refused deal again at this moment, or, for a hand that went
  // without its deal, a deal put before it in the outbox; then the outbox goes on.
  async dealNow(entry) {
    const { segment, hand } = entry.body;
    if (!this.canDealNow(segment, hand)) return;
    const now = this.clock.now();
    if (entry.endpoint === "deals") {
      entry.body = { ...entry.body, time: isoTime(now) };
      Object.assign(entry, {
        time: isoTime(now),
        offsetMs: this.clock.offsetMs,
        page: performance.timeOrigin,
        mono: performance.now(),
        auto: false,
        redealt: true,
      });
      await this.retry(entry);
      return;
    }
    // The deal first, sorted before the hand: the hand is queued again only once its deal
    // is in the outbox, so that no flush in between can send the hand alone.
    const body = { round: entry.body.round, segment, table: entry.body.table, hand };
    if (!this.dealOf(segment, hand)) await this.queue("deals", body, { created: entry.created - 0.5, redealt: true });
    await this.retry(entry);
  }

  // The server's sentence, without the field prefix and the rule in brackets.
  reason(entry) {
    const text = (entry.error ?? "").replace(/^field '[^']*': /, "").replace(/ \(rule [^)]*\)$/, "");
    const sentence = text ? text[0].toUpperCase() + text.slice(1) : "The server refused it";
    return entry.rule ? `${sentence} (rule ${entry.rule})` : sentence;
  }

  renderRefusal() {
    const entry = this.firstRefused();
    const box = $("refusal");
    const appearing = box.hidden && entry !== null;
    box.hidden = entry === null;
    $("tablet").dataset.refused = entry ? "yes" : "no";
    if (!entry) return;
    const { title, what, next, dealNow } = this.explainRefusal(entry);
    box.dataset.key = entry.key;
    $("refusal-deal").hidden = !dealNow;
    // "Send again" would only be refused again: the deal is the way on
    $("refusal-retry").className = dealNow ? "secondary" : "big primary";
    $("refusal-title").textContent = title;
    $("refusal-what").textContent = what;
    $("refusal-next").textContent = next;
    $("refusal-server").textContent = `${this.describe(entry)}. The server said: ${entry.error}`;
    if (appearing) {
      box.closest(".action-view").scrollTop = 0; // in sight, whatever the judge was looking at
      box.scrollIntoView({ block: "nearest" });
    }
    const behind = this.entries.filter((e) => e.status === "queued" && e.created > entry.created).length;
    $("refusal-waiting").textContent = behind
      ? `${behind} more ${behind === 1 ? "entry waits" : "entries wait"} behind it on this tablet; nothing is lost.`
      : "";
  }

  // ---- corrections and voids ----

  renderFix(segment) {
    const rows = this.rows(segment);
    const entered = new Set(rows.map((r) => r.hand));
    const next = this.nextHand(segment) ?? this.who.hands_per_segment + 1;
    // Hands voided earlier leave a gap below the next hand: they can be entered anew.
    const gaps = [];
    for (let hand = 1; hand < next; hand++) if (!entered.has(hand)) gaps.push(hand);
    const recent = rows.slice(-4).reverse();
    const items = [
      ...recent.map((row) =>
        el(
          "li",
          { class: "fix-item", dataset: { hand: String(row.hand) } },
          el("span", { class: "fix-hand", text: `Hand ${row.hand}` }),
          el("span", { class: "fix-what", text: row.voided ? "voided" : this.rowText(segment, row) }),
          row.state !== "server" ? el("span", { class: "badge queued", text: row.state }) : null,
          el("button", {
            type: "button",
            class: "secondary",
            text: "Correct",
            disabled: row.voided,
            onclick: () => this.startCorrection(segment, row.hand),
          }),
          el("button", {
            type: "button",
            class: "danger",
            text: "Void",
            disabled: row.voided,
            onclick: () => this.startVoid(segment, row.hand),
          }),
        ),
      ),
      ...gaps.map((hand) =>
        el(
          "li",
          { class: "fix-item", dataset: { hand: String(hand) } },
          el("span", { class: "fix-hand", text: `Hand ${hand}` }),
          el("span", { class: "fix-what", text: "voided" }),
          el("button", {
            type: "button",
            class: "secondary",
            text: "Enter again",
            onclick: () => {
              this.draft = this.emptyDraft("reenter", hand, segment);
              this.showTab("hand");
            },
          }),
        ),
      ),
    ];
    $("fix-list").replaceChildren(
      ...(items.length ? items : [el("li", { class: "note", text: "No hands to correct yet." })]),
    );
    $("void-form").hidden = this.voidHand === null;
    if (this.voidHand !== null) $("void-title").textContent = `Void hand ${this.voidHand.hand}`;
  }

  rowText(segment, row) {
    const deltas = row.deltas ?? {};
    return this.seatsOf(segment)
      .map((p) => `${this.nameOf(p)} ${this.deltaText(deltas[String(p)] ?? 0)}`)
      .join(" · ");
  }

  startCorrection(segment, hand) {
    this.draft = this.emptyDraft("correction", hand, segment);
    $("entry-reason").value = "";
    this.showTab("hand");
  }

  startVoid(segment, hand) {
    this.voidHand = { segment, hand };
    $("void-reason").value = "";
    this.renderFix(segment);
    $("void-reason").focus();
  }

  reviewVoid() {
    const reason = $("void-reason").value.trim();
    if (!this.voidHand) return;
    if (!reason) {
      $("void-reason").setAttribute("aria-invalid", "true");
      $("void-reason").focus();
      return;
    }
    const { segment, hand } = this.voidHand;
    this.pendingSend = {
      endpoint: "voids",
      body: { round: this.who.round, segment, table: this.who.table, hand, reason },
    };
    // A void takes back the hand's point changes.
    const row = this.rows(segment).find((r) => r.hand === hand);
    const back = Object.fromEntries(Object.entries(row?.deltas ?? {}).map(([p, d]) => [p, -d]));
    this.showReview(segment, hand, back, this.pendingSend);
  }

  // ---- table events: deal, seats, early start, through the outbox like the hands ----

  // "Tiles dealt": the deal goes into the outbox with this tablet's time (rule CL-3), online
  // or not; the server judges it by that time, whenever it arrives.
  async recordDeal() {
    const segment = this.segment();
    const hand = Number($("deal-button").dataset.hand);
    const deal = hand ? this.dealOf(segment, hand) : null;
    if (deal?.state === "refused") {
      // The deal was refused: the message over the actions says what to do with it.
      if (this.canDealNow(segment, hand)) await this.dealNow(deal.entry);
      else $("refusal").scrollIntoView({ block: "nearest" });
      return;
    }
    await this.queueDeal(segment, hand, false);
  }

  // One deal per hand, however fast the taps come: the check and the outbox's write are
  // not one step, so a hand being dealt is kept aside until its entry is in the outbox.
  async queueDeal(segment, hand, auto) {
    const key = `${segment}:${hand}`;
    if (!hand || this.dealing.has(key) || this.dealOf(segment, hand)) return null;
    this.dealing.add(key);
    try {
      const body = { round: this.who.round, segment, table: this.who.table, hand };
      return await this.queue("deals", body, auto ? { auto: true } : {});
    } finally {
      this.dealing.delete(key);
    }
  }

  renderSeatDraw(segment) {
    const kind = this.who.segment_kind;
    $("seats-title").textContent = `Seats for ${kind} ${segment}`;
    const hasHands = this.rows(segment).length > 0;
    if (!this.drawSeats || this.drawSeats.segment !== segment) {
      this.drawSeats = { segment, seats: [...this.seatsOf(segment)], proposed: false };
      this.swapFrom = null;
    }
    $("seats-result").textContent = this.seatsResult(segment);
    $("seats-note").textContent = hasHands
      ? `This ${kind} has hands already; its seats are fixed (rule SE-5).`
      : "Draw the seats at the table, or tap “Propose draw”. Tap two seats to exchange their players, then record them.";
    $("seats-propose").disabled = hasHands;
    $("seats-record").disabled = hasHands || this.drawSeats.seats.length !== 4;
    $("seat-draw").replaceChildren(
      ...this.drawSeats.seats.map((player, index) =>
        el(
          "li",
          {},
          el(
            "button",
            {
              type: "button",
              class: "seat-button",
              disabled: hasHands,
              "aria-pressed": String(this.swapFrom === index),
              dataset: { seat: SEAT_NAMES[index], player: String(player) },
              onclick: () => this.swapSeat(index),
            },
            el("span", { class: "wind", text: capitalised(SEAT_NAMES[index]) }),
            el("span", { class: "name", text: this.nameOf(player) }),
            el("span", { class: "pid", text: String(player) }),
          ),
        ),
      ),
    );
  }

  swapSeat(index) {
    const seats = this.drawSeats.seats;
    if (this.swapFrom === null) {
      this.swapFrom = index;
    } else {
      [seats[this.swapFrom], seats[index]] = [seats[index], seats[this.swapFrom]];
      this.swapFrom = null;
    }
    this.renderSeatDraw(this.drawSeats.segment);
  }

  async recordSeats() {
    if (!this.drawSeats) return; // a second tap while the first is being kept
    const { segment, seats } = this.drawSeats;
    this.drawSeats = null;
    await this.queue("seats", { round: this.who.round, segment, table: this.who.table, seats: [...seats] });
  }

  // What became of the seats last recorded on this tablet for `segment`.
  seatsResult(segment) {
    const entry = this.entries.filter((e) => e.endpoint === "seats" && e.body.segment === segment && e.body.round === this.who.round).pop();
    if (!entry) return "";
    const seats = entry.body.seats;
    const names = `East ${this.nameOf(seats[0])}, South ${this.nameOf(seats[1])}, West ${this.nameOf(seats[2])}, North ${this.nameOf(seats[3])}`;
    if (entry.status === "sent") return `Seats recorded: ${names}.`;
    if (entry.status === "refused") return `Seats refused: ${entry.error}`;
    return `Seats kept on this tablet: ${names}. They go to the server as soon as the network allows.`;
  }

  renderStart() {
    const clock = this.table?.round === this.who?.round ? this.table?.clock : null;
    const segment = this.segment();
    const kind = this.who.segment_kind;
    const entry = this.entries.filter((e) => e.endpoint === "early-starts" && e.body.segment === segment && e.body.round === this.who.round).pop();
    const startsAt = clock?.starts_at ? Date.parse(clock.starts_at) : null;
    const now = this.clock.now();
    // rule CL-2: at most the format's minutes before the scheduled start (5 in WSOM 2008)
    const earliest = startsAt === null ? null : startsAt - this.who.early_start_minutes * 60000;
    const waiting = clock?.phase === "not_started" && startsAt !== null && now < startsAt;
    const open = !entry || entry.status === "refused";
    const together = kind === "quarter" && segment % 2 === 0; // rule CL-5
    const canStart = waiting && open && !together && now >= earliest;
    $("start-result").textContent = !entry
      ? ""
      : entry.status === "sent"
        ? `Early start recorded at ${clockText(entry.body.time)}.`
        : entry.status === "refused"
          ? `Early start refused: ${entry.error}`
          : `Early start at ${clockText(entry.body.time)} kept on this tablet; it goes to the server as soon as the network allows.`;
    const rule = `The table may start up to ${this.who.early_start_minutes} minutes early when all four players agree; the deadline does not move (rule CL-2).`;
    let note;
    if (startsAt === null) {
      note = `This ${kind} has no scheduled start, so there is nothing to start early (rule CL-3a).`;
    } else if (!open) {
      note = `This table started early, all four players agreeing; the deadline does not move (rule CL-2).`;
    } else if (!waiting) {
      note = `This ${kind} started at ${clockText(startsAt)}.`;
    } else if (together) {
      note = `Scheduled start ${clockText(startsAt)}. Both tables start this ${kind} together, so it cannot start early (rule CL-5).`;
    } else if (now < earliest) {
      note = `Scheduled start ${clockText(startsAt)}. ${rule} Not before ${clockText(earliest)}.`;
    } else {
      note = `Scheduled start ${clockText(startsAt)}. ${rule}`;
    }
    $("start-note").textContent = note;
    $("start-record").disabled = !($("start-agree").checked && canStart);
    return canStart;
  }

  async recordEarlyStart() {
    if (!$("start-agree").checked || !this.renderStart()) return;
    const segment = this.segment();
    $("start-agree").checked = false;
    await this.queue("early-starts", { round: this.who.round, segment, table: this.who.table });
  }

  // ---- wiring ----

  bindStatic() {
    window.addEventListener("popstate", () => this.onBack());
    $("token-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const token = $("token-input").value.trim();
      if (!token) return;
      localStorage.setItem(TOKEN_KEY, token);
      location.reload();
    });
    for (const button of document.querySelectorAll("[data-tab]")) {
      button.addEventListener("click", () => this.showTab(button.dataset.tab));
    }
    for (const button of document.querySelectorAll("#outcomes [data-kind]")) {
      button.addEventListener("click", () => {
        const keep = this.draft;
        this.draft = {
          ...this.emptyDraft(keep.mode, keep.hand, keep.segment),
          reason: keep.reason,
          kind: button.dataset.kind,
        };
        this.startEntering();
        this.render();
      });
    }
    for (const button of document.querySelectorAll("#aa-outcomes [data-aa-kind]")) {
      button.addEventListener("click", () => {
        const keep = this.draft;
        this.draft = {
          ...this.emptyDraft(keep.mode, keep.hand, keep.segment),
          reason: keep.reason,
          kind: button.dataset.aaKind,
          riichi: keep.riichi, // what happened at the table besides the outcome stays
          dead: keep.dead,
        };
        this.startEntering();
        this.render();
      });
    }
    for (const button of document.querySelectorAll("#keypad [data-key]")) {
      button.addEventListener("click", () => this.key(button.dataset.key));
    }
    $("entry-reason").addEventListener("input", (event) => {
      this.draft.reason = event.target.value;
      this.renderEntry();
    });
    $("entry-clear").addEventListener("click", () => {
      this.draft = this.emptyDraft();
      this.entryNotice = "";
      $("entry-reason").value = "";
      this.renderEntry();
      this.renderTabs();
    });
    $("entry-review").addEventListener("click", () => this.review());
    $("review-back").addEventListener("click", () => {
      this.pendingSend = null;
      this.tab = this.voidHand ? "fix" : "hand";
      this.render();
    });
    $("review-send").addEventListener("click", () => this.confirmSend());
    $("deal-button").addEventListener("click", () => this.recordDeal());
    $("void-cancel").addEventListener("click", () => {
      this.voidHand = null;
      this.render();
    });
    $("void-review").addEventListener("click", () => this.reviewVoid());
    $("seats-propose").addEventListener("click", () => {
      this.drawSeats.seats = shuffled(this.drawSeats.seats);
      this.swapFrom = null;
      this.renderSeatDraw(this.drawSeats.segment);
    });
    $("seats-record").addEventListener("click", () => this.recordSeats());
    $("start-agree").addEventListener("change", () => this.renderStart());
    $("start-record").addEventListener("click", () => this.recordEarlyStart());
    $("refusal-retry").addEventListener("click", () => {
      const entry = this.firstRefused();
      if (entry) this.retry(entry);
    });
    $("refusal-discard").addEventListener("click", () => {
      const entry = this.firstRefused();
      if (entry) this.discard(entry);
    });
    $("refusal-deal").addEventListener("click", () => {
      const entry = this.firstRefused();
      if (entry) this.dealNow(entry);
    });
  }
}

if (document.getElementById("judge")) {
  const tablet = new Tablet();
  window.judgeTablet = tablet; // for the browser tests and for support on the floor
  tablet.start();
}
