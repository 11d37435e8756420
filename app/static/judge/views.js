// @ts-check
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

import { LiveFeed, formatClock } from "../live.js";
import { SPOKEN_HEADERS, formatNumber, language, spoken, t, tn } from "../i18n.js";
import { LIMITS, LIMIT_WORDS, RIICHI_BET, VALID_FU, basePoints, handLabel, ordinal } from "../ariari.js";
import { Outbox, OutboxSync, RETRY_EVERY_MS, REQUEST_TIMEOUT_MS, isoTime } from "./outbox.js";
import { CallButton } from "./call.js";
import {
  END_WORDS,
  SEAT_NAMES,
  SEAT_WORDS,
  STATE_WORDS,
  STORE,
  TabletState,
  WIND,
  clockText,
  readJson,
  shuffled,
  signed,
  sumOf,
  sumOfAbs,
  writeJson,
} from "./state.js";

export const TOKEN_KEY = `${STORE}token`;

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

// The page's own elements, by id (judge.html): typed loosely, each is the element the page has.
/** @type {(id: string) => any} */
const $ = (id) => document.getElementById(id);
/** @type {(selector: string) => NodeListOf<HTMLElement>} */
const all = (selector) => document.querySelectorAll(selector);

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

// -- the tablet ------------------------------------------------------------------------------

export class Tablet extends TabletState {
  constructor() {
    super();
    this.feed = null;
    this.outbox = new Outbox();
    this.sync = new OutboxSync(this.outbox, {
      post: (path, body, headers) => this.api("POST", path, body, headers),
      clock: this.clock,
      onChange: () => this.render(),
      onSettled: (entry) => {
        if (this.who && ["corrections", "voids", "seats"].includes(entry.endpoint)) this.loadWhoAmI();
      },
      startsAtOf: (segment) => this.serverTable(segment)?.clock?.starts_at ?? null,
      isOnline: () => navigator.onLine,
    });
    this.drawSeats = null; // the seats being drawn (rule SE-5)
    this.swapFrom = null;
    this.dealing = new Set(); // "segment:hand" of deals being put in the outbox
    this.historyPushed = false; // the page's own history entry (the back button)
    // issue 18, part 3: "Call a judge", sent on its own (call.js says why not by the outbox)
    this.caller = new CallButton({
      post: (path, body, headers) => this.api("POST", path, body, headers),
      who: () => this.who,
      now: () => this.clock.now(),
    });
  }

  // ---- the outbox (outbox.js sends it) ----

  queue(endpoint, body, extra = {}) {
    return this.sync.queue(this.who.tournament, endpoint, body, extra);
  }

  flush() {
    return this.sync.flush();
  }

  retry(entry) {
    return this.sync.retry(entry);
  }

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
      await this.sync.load();
    } catch (error) {
      this.fatal(t("This browser cannot keep an outbox (IndexedDB): {error}", { error: String(error) }));
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

  // The worker keeps the page for a reload while the hall's network is down. Its install
  // fetches the page and every module: one of them lost to a Wi-Fi hiccup fails it, and the
  // tablet would have no offline copy until someone reloads it. So, until a worker controls
  // the page, it is registered again (a new install once the last one failed; nothing while
  // one is under way), waiting longer each time.
  registerServiceWorker(attempt = 0) {
    if (!("serviceWorker" in navigator)) return; // plain http on a LAN address: see docs/https.md
    navigator.serviceWorker.register("/judge/sw.js", { scope: "/judge" }).catch(() => {});
    setTimeout(() => {
      if (!navigator.serviceWorker.controller) this.registerServiceWorker(attempt + 1);
    }, Math.min(2000 * 2 ** attempt, 60_000));
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
      // 403: the head judge's token, which opens the head judge's page, not a table
      if (response.status === 401 || response.status === 403) {
        localStorage.removeItem(TOKEN_KEY);
        this.token = null;
        const problem = await response.json().catch(() => ({}));
        this.showNoToken(problem.detail ?? t("This table token is not known."));
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
      $("no-token").querySelector("h1").textContent = t("Waiting for the server");
      setTimeout(() => this.loadWhoAmI(), RETRY_EVERY_MS);
    }
  }

  showWho(who) {
    if (this.speakTheTournamentsLanguage(who)) return;
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
      this.feed = new LiveFeed(who.tournament, [`table:${who.table}`, "calls"], {
        onState: (channel, state, message) => {
          // a snapshot's server time is fresh; a change may come from the feed's history
          if (message.type === "snapshot") this.clock.learn(message.server_time);
          if (channel === "calls") this.caller.onCalls(state);
          else this.onTable(state, message);
        },
        onHeartbeat: (message) => this.clock.learn(message.server_time),
        onStatus: (status) => this.renderStatus(status),
      }).connect();
      this.caller.start();
    }
    this.render();
  }

  // The page speaks the server's fallback language only when its reader chose none (no
  // ?lang=, no kept choice, no browser language the pages speak: judge.html's data-language).
  // The tournament, which would have been the next choice, is known only here, from the token
  // in the fragment: the tablet turns to its language, once, by ?lang=, which the page's
  // requests carry on and which the server takes as chosen (so the turn never comes again).
  speakTheTournamentsLanguage(who) {
    const url = new URL(location.href);
    if ($("judge").dataset.language !== "fallback" || url.searchParams.has("lang")) return false;
    if (!who.language || who.language === language) return false;
    url.searchParams.set("lang", who.language);
    location.replace(url.href);
    return true;
  }

  // A player's name where it has room: the form its reader reads first (in its owner's
  // script for a reader of Japanese, Chinese or Korean), the other beneath, each drawn in
  // its own language's glyphs, as the hall and the player page show them.
  nameParts(player) {
    const [shown, other, shownLang, otherLang] = this.namesOf(player);
    return [
      el("span", { class: "name", translate: "no", lang: shownLang, text: shown }),
      other ? el("span", { class: "other-name", translate: "no", lang: otherLang, text: other }) : null,
    ];
  }

  api(method, path, body, headers = {}) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), REQUEST_TIMEOUT_MS);
    // A tablet opened with ?lang= (its card's QR code may name the judge's language): the
    // server's refusals above all in that language too.
    return fetch(spoken(path), {
      method,
      cache: "no-store",
      signal: controller.signal,
      headers: {
        Authorization: `Bearer ${this.token}`,
        ...SPOKEN_HEADERS,
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

  chooseSegment(segment) {
    localStorage.setItem(this.chosenKey(), String(segment));
    this.render();
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

  render() {
    if (!this.who) return;
    const segment = this.segment();
    const kind = this.who.segment_kind;
    $("where-table").textContent = t("Table {table}", { table: this.who.table });
    $("where-segment").replaceChildren(
      el("span", { translate: "no", text: this.who.tournament_name }),
      " · ",
      t("round {round}", { round: this.who.round }),
      " · ",
      this.segmentWord(kind, segment ?? "–"),
    );
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
    node.textContent = STATE_WORDS[shown] ?? shown;
  }

  renderClock() {
    const clock = this.table?.round === this.who?.round ? this.table?.clock : null;
    const node = $("clock");
    node.dataset.phase = clock?.phase ?? "none";
    if (!clock) {
      node.textContent = t("no clock");
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
      text = t("overtime +{time}", { time: formatClock(since(clock.deadline)) });
    } else if (phase === "finished_short") {
      text = t("time is up");
    } else if (clock.phase === "not_started" && clock.deadline && (early || until(clock.starts_at) === 0)) {
      // started early here, the server not told yet: the deadline does not move (rule CL-2);
      // or started on schedule since the feed last said (the tablet is offline)
      text = t("{time} left", { time: formatClock(until(clock.deadline)) });
    } else if (clock.phase === "not_started" && clock.starts_at) {
      text = t("starts in {time}", { time: formatClock(until(clock.starts_at)) });
    } else if (clock.phase === "running" && clock.deadline) {
      const left = until(clock.deadline);
      text = left > 0 ? t("{time} left", { time: formatClock(left) }) : t("time");
    } else if (clock.phase === "running") {
      text = t("no time limit");
    } else if (clock.phase === "overtime" && clock.deadline) {
      text = t("overtime +{time}", { time: formatClock(since(clock.deadline)) });
    } else if (clock.phase === "break" && clock.break_ends) {
      text = t("break {time}", { time: formatClock(until(clock.break_ends)) });
    } else if (clock.phase === "finished_short") {
      text = t("time is up");
    } else {
      text = STATE_WORDS[clock.phase] ?? clock.phase.replace("_", " ");
    }
    node.textContent = text;
  }

  renderNextHand(segment) {
    const next = this.nextHand(segment);
    const total = this.who.hands_per_segment;
    const dealButton = $("deal-button");
    const done = $("segment-done");
    if (next === null) {
      $("deal-note").textContent = "";
      $("next-title").textContent = t("{segment} is complete", {
        segment: this.segmentText(this.who.segment_kind, segment),
      });
      const ended = this.isAriAri() ? this.gameEnded(segment, this.lastHand(segment) + 1) : null;
      const last = this.lastHand(segment);
      $("next-dealer").textContent = this.isAriAri()
        ? (ended
            ? t("The game ended after hand {hand}: {why} (rule {rule})", {
                hand: last,
                why: END_WORDS[ended] ?? ended,
                rule: ended,
              })
            : t("The game ended after hand {hand}", { hand: last })) + this.leftoverText(segment)
        : t("{count} of {total} hands", { count: total, total });
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
            text: t("Go to {segment}", { segment: this.segmentWord(this.who.segment_kind, later.segment) }),
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
    $("next-title").textContent = t("Hand {hand} of {total}", { hand: next, total });
    // the name apart, as data (translate="no")
    $("next-dealer").replaceChildren(
      ...(dealer === null
        ? []
        : [
            t("Dealer: {wind}", { wind: this.windOf(segment, next, dealer) }),
            " · ",
            el("span", { translate: "no", text: this.nameOf(dealer) }),
          ]),
    );
    const game = this.isAriAri() ? this.gameBefore(segment, next) : null;
    if (this.isAriAri()) {
      // rules AA-5, AA-6, AA-12: the round wind, the counters and the riichi bets on the table
      $("next-title").textContent = game
        ? t("{round_hand} · hand {hand}", { round_hand: handLabel(game.passes), hand: next })
        : t("Hand {hand}", { hand: next });
      // (the counts first: a call inside a call's arguments is not extracted)
      const counters = game ? tn("{count} counter", "{count} counters", game.counters) : "";
      const bets = game ? tn("{count} riichi bet", "{count} riichi bets", game.bets / RIICHI_BET) : "";
      $("next-dealer").textContent = game
        ? t("Dealer: {name} · {counters} · {bets} on the table", { name: this.nameOf(dealer), counters, bets })
        : t("Waiting for the server to replay the game");
    }
    dealButton.hidden = false;
    const deal = this.dealOf(segment, next);
    const dealt = deal && deal.state !== "refused";
    dealButton.textContent = dealt
      ? t("Dealt ✓ {time}", { time: clockText(deal.time) })
      : t("Tiles dealt · hand {hand}", { hand: next });
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
      note = t("The time limit passed at {time}: no new hand may start (rule CL-3).", {
        time: clockText(timing.deadline),
      });
    } else if (early) {
      note = t(
        "This {kind} starts at {time}; to start sooner, record an early start that all four players agree to (rule CL-2).",
        { kind: this.kindWord(this.who.segment_kind), time: clockText(timing.startsAt) },
      );
    } else if (deal?.state === "other device") {
      note = t("Hand {hand} was dealt at {time}, recorded on another device at this table.", {
        hand: next,
        time: clockText(deal.time),
      });
    } else if (deal?.state === "queued") {
      note = deal.entry.auto
        ? t(
            "Deal recorded when you started entering the hand at {time}, by this tablet's clock; it goes to the server as soon as the network allows.",
            { time: clockText(deal.time) },
          )
        : t(
            "Deal recorded at {time}, by this tablet's clock; it goes to the server as soon as the network allows.",
            { time: clockText(deal.time) },
          );
    } else if (deal?.state === "sent" || deal?.state === "server") {
      note = deal.entry?.auto
        ? t("Deal of hand {hand} recorded at {time}, when you started entering the hand.", {
            hand: next,
            time: clockText(deal.time),
          })
        : t("Deal of hand {hand} recorded at {time}.", { hand: next, time: clockText(deal.time) });
    }
    $("deal-note").textContent = note;
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
              ? formatNumber(totals[String(player)] ?? 0)
              : signed(totals[String(player)] ?? 0),
          }),
          ...this.nameParts(player),
          el("span", { class: "pid", translate: "no", text: String(player) }),
          end?.players[String(player)] ? this.aaResultLine(end.players[String(player)]) : null,
          String(player) === String(dealer) ? el("span", { class: "dealer-mark", text: t("deals") }) : null,
        ),
      ),
    );
  }

  // rules AA-15 to AA-17: a player's place, leftover bets, uma and result once the game ended
  aaResultLine(row) {
    const points = (n) => `${n > 0 ? "+" : n < 0 ? "−" : ""}${formatNumber(Math.abs(n))}`;
    const parts = [`${ordinal(row.place)}`];
    if (row.bets) parts.push(t("bets {points}", { points: points(row.bets) }));
    parts.push(t("uma {points}", { points: points(row.uma) }), t("result {points}", { points: points(row.result) }));
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
        el("th", { scope: "col", text: t("Value") }),
        ...players.map((p) => el("th", { scope: "col", class: "num", translate: "no" }, ...this.nameParts(p))),
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
              ? t("void")
              : row.gameEnd
                ? end.bets
                  ? t("Game end: bets and uma")
                  : t("Game end: uma")
                : this.isAriAri()
                ? this.shortResult(row.result)
                : (row.value ?? (row.deltas && sumOfAbs(row.deltas) === 0 ? t("draw") : "–")),
          }),
          ...players.map((p) => {
            const delta = row.deltas?.[String(p)];
            return el(
              "td",
              {
                class: `num${String(p) === dealer ? " dealt" : ""}`,
                title: String(p) === dealer ? t("dealer") : undefined,
              },
              el("span", {
                class: `delta ${delta > 0 ? "up" : delta < 0 ? "down" : ""}`,
                text: this.deltaText(delta),
              }),
              el("span", {
                class: "running",
                text: this.isAriAri()
                  ? formatNumber(row.totals[String(p)] + this.who.game.start_points)
                  : signed(row.totals[String(p)]),
              }),
            );
          }),
          el(
            "td",
            { class: "badge-cell" },
            row.state === "server"
              ? ""
              : el("span", { class: `badge ${row.state.split(" ").pop()}`, text: STATE_WORDS[row.state] ?? row.state }),
          ),
        );
      }),
    );
    if (!running.length) {
      table.tBodies[0].append(
        el("tr", {}, el("td", { colspan: String(players.length + 3), class: "empty", text: t("No hands yet") })),
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
              ? t(
                  "Each cell: the hand's point change (riichi bets included), and below it the player's points; the game end's row: the leftover bets and uma, and below it start + result. The bar marks who dealt.",
                )
              : t(
                  "Each cell: the hand's point change (riichi bets included), and below it the player's points. The bar marks who dealt.",
                )
            : t(
                "Each cell: the hand's point change, and below it the running total in this segment. The bar marks who dealt.",
              ),
        }),
      ),
    );
  }

  renderOutbox() {
    const counts = this.counts();
    for (const node of all("#outbox-summary [data-count]")) {
      node.textContent = formatNumber(counts[node.dataset.count]);
    }
    const summary = $("outbox-summary");
    summary.classList.toggle("has-queued", counts.queued > 0);
    summary.classList.toggle("has-refused", counts.refused > 0);
    $("outbox-note").textContent = this.sync.addressProblem
      ? t("This address does not take the judges' hands: open the judge's card again. {problem}", {
          problem: this.sync.addressProblem,
        })
      : this.sync.tokenProblem
      ? t("The server does not accept this tablet's token: {problem}", { problem: this.sync.tokenProblem })
      : counts.refused
        ? t("{count} waiting behind a refused entry: say what to do with it first.", {
            count: formatNumber(counts.queued),
          })
        : counts.queued
        ? t("{count} waiting for the server; sent again every {seconds} s and as soon as the network returns.", {
            count: formatNumber(counts.queued),
            seconds: RETRY_EVERY_MS / 1000,
          })
        : "";
    const list = $("outbox-list");
    list.replaceChildren(
      ...[...this.entries].reverse().map((entry) =>
        el(
          "li",
          { class: `outbox-entry ${entry.status}`, dataset: { key: entry.key, status: entry.status } },
          el("span", { class: `badge ${entry.status}`, text: STATE_WORDS[entry.status] ?? entry.status }),
          el("span", { class: "what", text: this.describe(entry) }),
          el("span", { class: "key", translate: "no", text: entry.key.slice(0, 8) }),
          entry.status === "refused" ? el("span", { class: "error", text: entry.error }) : null,
          entry.status === "queued" && entry.lastError
            ? el("span", {
                class: "note",
                text: tn("{count} attempt: {error}", "{count} attempts: {error}", entry.attempts, {
                  error: entry.lastError,
                }),
              })
            : null,
          el("span", { class: "note", translate: "no", text: clockText(entry.time ?? entry.created) }),
        ),
      ),
    );
  }

  renderTabs() {
    for (const button of all("#tabs [data-tab]")) {
      button.setAttribute("aria-pressed", String(button.dataset.tab === this.tab));
    }
    for (const panel of all(".action-view .panel")) {
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
      this.entryNotice = t("The back button keeps the hand being entered: tap “Clear” to start it again.");
    }
    this.render();
  }

  showTab(tab) {
    this.tab = tab;
    if (tab === "seats") this.drawSeats = null;
    this.render();
  }

  renderEntry() {
    const draft = this.draft;
    const { segment, hand } = this.draftTarget();
    const seatsNeeded = this.seatsOf(segment).length === 4;
    const title =
      draft.mode === "correction"
        ? t("Correct hand {hand}", { hand })
        : draft.mode === "reenter"
          ? t("Enter voided hand {hand}", { hand })
          : hand === null
            ? t("No hand to enter")
            : t("Result of hand {hand}", { hand });
    $("entry-title").textContent = title;
    $("entry-notice").textContent = this.entryNotice;
    $("entry-reason-row").hidden = draft.mode !== "correction";
    for (const button of /** @type {NodeListOf<HTMLButtonElement>} */ (all("#outcomes [data-kind]"))) {
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
          el("span", { class: "name", translate: "no", text: this.nameOf(player) }),
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
      for (const button of /** @type {NodeListOf<HTMLButtonElement>} */ (all("#aa-outcomes [data-aa-kind]"))) {
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
      $("value-label").textContent = draft.typing === null ? t("Tap a seat") : `${this.nameOf(draft.typing)}`;
      $("value-label").translate = draft.typing === null;
      $("value-display").textContent =
        draft.typing === null ? "–" : draft.deltas[String(draft.typing)] || "0";
    } else {
      $("value-label").textContent = t("Value ({min}–{max})", { min: this.who.min_value, max: this.who.max_value });
      $("value-label").translate = true;
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

  review() {
    const review = this.reviewOf();
    if (!review) return;
    const { segment, hand, ...pending } = review;
    this.pendingSend = pending;
    this.showReview(segment, hand, pending.deltas, this.pendingSend);
  }

  showReview(segment, hand, deltas, pending) {
    const cycle = this.isAriAri() ? this.seatsOf(segment) : this.cycleSeats(segment, hand);
    $("review-title").textContent =
      pending.endpoint === "voids"
        ? t("Void hand {hand}?", { hand })
        : pending.endpoint === "corrections"
          ? t("Correct hand {hand}?", { hand })
          : t("Send hand {hand}?", { hand });
    $("review-summary").textContent = this.describe({ endpoint: pending.endpoint, body: pending.body });
    if (pending.gameEnds) {
      // rules AA-15, AA-16: the judge hears before sending that the game ends here
      const why = END_WORDS[pending.gameEnds];
      const rule = pending.gameEnds;
      $("review-summary").append(
        el("span", {
          class: "aa-game-ends",
          text: " " + (pending.betsLeft
            ? t(
                "This hand ends the game: {why} (rule {rule}); the {bets} in riichi bets left on the table go to first place, and the uma is added after it.",
                { why, rule, bets: formatNumber(pending.betsLeft) },
              )
            : t("This hand ends the game: {why} (rule {rule}); the uma is added after it.", { why, rule })),
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
          el("td", { class: "who", translate: "no" }, ...this.nameParts(player)),
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
          el("td", { text: t("Riichi bets on the table") }),
          el("td", { class: "num delta", text: this.deltaText(pending.tableBets) }),
        ),
      );
    }
    const total = deltas ? sumOf(deltas) + (pending.tableBets ?? 0) : 0;
    $("review-sum").textContent = !deltas
      ? t("the server replays the game")
      : total === 0
        ? "0 ✓"
        : formatNumber(total);
    $("review-reason").textContent = pending.body.reason ? t("Reason: {reason}", { reason: pending.body.reason }) : "";
    $("review-send").textContent = pending.endpoint === "voids" ? t("Void it") : t("Send");
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

  // A row of the table's four seats for one role of the hand; `multi` roles toggle.
  aaSeatRow(label, role, segment, hand, { selected, disabled = (player) => false, tap }) {
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
          el("span", { class: "name", translate: "no", text: this.nameOf(player) }),
        ),
      ),
    );
  }

  // One winner's hand: fan and fu, or a limit (rule AA-2), and the yaku (rules AA-7, AA-20).
  aaWinCard(player) {
    const win = this.draft.wins[player];
    const stepper = (label, field, min, max, fewer, more) =>
      el(
        "div",
        { class: "stepper", dataset: { field } },
        el("span", { class: "pick-label", text: label }),
        el("button", {
          type: "button",
          text: "−",
          "aria-label": fewer,
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
          "aria-label": more,
          disabled: (win[field] ?? 0) >= max,
          onclick: () => {
            win[field] = Math.min(max, (win[field] ?? 0) + 1);
            if (field === "fan") win.limit = null;
            this.renderEntry();
          },
        }),
      );
    /** @type {(label: string, field: string, values: any[], text?: (value: any) => string) => HTMLElement} */
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
      el(
        "h3",
        {},
        el("span", { translate: "no", text: this.nameOf(player) }),
        base === null ? null : " · ",
        base === null ? null : t("base {points}", { points: formatNumber(base) }),
      ),
      el(
        "div",
        { class: "steppers" },
        stepper(t("fan"), "fan", 1, 13, t("fewer fan"), t("more fan")),
        stepper(t("yaku"), "yaku", 1, 20, t("fewer yaku"), t("more yaku")),
      ),
      needsFu ? choices(t("fu"), "fu", VALID_FU, (fu) => formatNumber(fu)) : null,
      choices(t("or a limit"), "limit", Object.keys(LIMITS), (limit) => LIMIT_WORDS[limit] ?? limit),
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
        this.aaSeatRow(t("Discarder"), "aa-discarder", segment, hand, {
          selected: (p) => draft.discarder === p,
          tap: (p) => {
            draft.discarder = p;
            if (draft.winners.includes(p)) toggle(draft.winners, p);
          },
        }),
        this.aaSeatRow(t("Winners (one or more, rule AA-4)"), "aa-winners", segment, hand, {
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
        this.aaSeatRow(t("Winner"), "aa-winners", segment, hand, {
          selected: (p) => draft.winners.includes(p),
          tap: (p) => {
            draft.winners = [p];
            draft.wins[p] ??= newWin();
          },
        }),
      );
    } else if (draft.kind === "exhaustive_draw") {
      rows.push(
        this.aaSeatRow(t("Tenpai (rule AA-9)"), "aa-tenpai", segment, hand, {
          selected: (p) => draft.tenpai.includes(p),
          tap: (p) => toggle(draft.tenpai, p),
        }),
      );
    } else if (draft.kind === "chombo") {
      rows.push(
        this.aaSeatRow(t("Offender (rule AA-10)"), "aa-offender", segment, hand, {
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
          this.aaSeatRow(t("Riichi declared this hand (1,000 each, rule AA-5)"), "aa-riichi", segment, hand, {
            selected: (p) => draft.riichi.includes(p),
            tap: (p) => toggle(draft.riichi, p),
          }),
          this.aaSeatRow(t("Dead hand (rule AA-11)"), "aa-dead", segment, hand, {
            selected: (p) => draft.dead.includes(p),
            tap: (p) => toggle(draft.dead, p),
          }),
        ]
      : [];
    const counters = game ? tn("{count} counter", "{count} counters", game.counters) : "";
    const state = game
      ? el("p", {
          class: "note",
          text: t("{round_hand} · {counters} · {bets} in riichi bets on the table", {
            round_hand: handLabel(game.passes),
            counters,
            bets: formatNumber(game.bets),
          }),
        })
      : null;
    $("aa-entry").replaceChildren(...[state, ...rows, ...cards, ...facts].filter(Boolean));
  }

  async discard(entry) {
    if (!confirm(t("Discard this entry? {entry}. It was refused: {error}", { entry: this.describe(entry), error: entry.error }))) return;
    await this.outbox.remove(entry.key);
    this.entries = await this.outbox.all();
    this.render();
    this.flush(); // the entries after it go on
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
    $("refusal-server").textContent = t("{entry}. The server said: {error}", { entry: this.describe(entry), error: entry.error });
    if (appearing) {
      box.closest(".action-view").scrollTop = 0; // in sight, whatever the judge was looking at
      box.scrollIntoView({ block: "nearest" });
    }
    const behind = this.entries.filter((e) => e.status === "queued" && e.created > entry.created).length;
    $("refusal-waiting").textContent = behind
      ? tn(
          "{count} more entry waits behind it on this tablet; nothing is lost.",
          "{count} more entries wait behind it on this tablet; nothing is lost.",
          behind,
        )
      : "";
  }

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
          el("span", { class: "fix-hand", text: t("Hand {hand}", { hand: row.hand }) }),
          // the hand's names and point changes are data; only "voided" is a word
          el("span", {
            class: "fix-what",
            translate: row.voided ? undefined : "no",
            text: row.voided ? t("voided") : this.rowText(segment, row),
          }),
          row.state !== "server" ? el("span", { class: "badge queued", text: STATE_WORDS[row.state] ?? row.state }) : null,
          el("button", {
            type: "button",
            class: "secondary",
            text: t("Correct"),
            disabled: row.voided,
            onclick: () => this.startCorrection(segment, row.hand),
          }),
          el("button", {
            type: "button",
            class: "danger",
            text: t("Void"),
            disabled: row.voided,
            onclick: () => this.startVoid(segment, row.hand),
          }),
        ),
      ),
      ...gaps.map((hand) =>
        el(
          "li",
          { class: "fix-item", dataset: { hand: String(hand) } },
          el("span", { class: "fix-hand", text: t("Hand {hand}", { hand }) }),
          el("span", { class: "fix-what", text: t("voided") }),
          el("button", {
            type: "button",
            class: "secondary",
            text: t("Enter again"),
            onclick: () => {
              this.draft = this.emptyDraft("reenter", hand, segment);
              this.showTab("hand");
            },
          }),
        ),
      ),
    ];
    $("fix-list").replaceChildren(
      ...(items.length ? items : [el("li", { class: "note", text: t("No hands to correct yet.") })]),
    );
    $("void-form").hidden = this.voidHand === null;
    if (this.voidHand !== null) $("void-title").textContent = t("Void hand {hand}", { hand: this.voidHand.hand });
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
    $("seats-title").textContent = t("Seats for {segment}", { segment: this.segmentWord(kind, segment) });
    const hasHands = this.rows(segment).length > 0;
    if (!this.drawSeats || this.drawSeats.segment !== segment) {
      this.drawSeats = { segment, seats: [...this.seatsOf(segment)], proposed: false };
      this.swapFrom = null;
    }
    $("seats-result").textContent = this.seatsResult(segment);
    $("seats-note").textContent = hasHands
      ? t("This {kind} has hands already; its seats are fixed (rule SE-5).", { kind: this.kindWord(kind) })
      : t(
          "Draw the seats at the table, or tap “Propose draw”. Tap two seats to exchange their players, then record them.",
        );
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
            el("span", { class: "wind", text: SEAT_WORDS[SEAT_NAMES[index]] }),
            el("span", { class: "name", translate: "no", text: this.nameOf(player) }),
            el("span", { class: "pid", translate: "no", text: String(player) }),
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
        ? t("Early start recorded at {time}.", { time: clockText(entry.body.time) })
        : entry.status === "refused"
          ? t("Early start refused: {error}", { error: entry.error })
          : t("Early start at {time} kept on this tablet; it goes to the server as soon as the network allows.", {
              time: clockText(entry.body.time),
            });
    const word = this.kindWord(kind);
    const minutes = this.who.early_start_minutes;
    let note;
    if (startsAt === null) {
      note = t("This {kind} has no scheduled start, so there is nothing to start early (rule CL-3a).", { kind: word });
    } else if (!open) {
      note = t("This table started early, all four players agreeing; the deadline does not move (rule CL-2).");
    } else if (!waiting) {
      note = t("This {kind} started at {time}.", { kind: word, time: clockText(startsAt) });
    } else if (together) {
      note = t(
        "Scheduled start {time}. Both tables start this {kind} together, so it cannot start early (rule CL-5).",
        { time: clockText(startsAt), kind: word },
      );
    } else if (now < earliest) {
      note = tn(
        "Scheduled start {time}. The table may start up to {count} minute early when all four players agree; the deadline does not move (rule CL-2). Not before {earliest}.",
        "Scheduled start {time}. The table may start up to {count} minutes early when all four players agree; the deadline does not move (rule CL-2). Not before {earliest}.",
        minutes,
        { time: clockText(startsAt), earliest: clockText(earliest) },
      );
    } else {
      note = tn(
        "Scheduled start {time}. The table may start up to {count} minute early when all four players agree; the deadline does not move (rule CL-2).",
        "Scheduled start {time}. The table may start up to {count} minutes early when all four players agree; the deadline does not move (rule CL-2).",
        minutes,
        { time: clockText(startsAt) },
      );
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

  // A tap on an outcome starts the hand's form again with it; the reason stays and, at an Ari
  // Ari table, what happened at the table besides the outcome (riichi, dead hands).
  chooseOutcome(kind, keepFacts) {
    const keep = this.draft;
    this.draft = {
      ...this.emptyDraft(keep.mode, keep.hand, keep.segment),
      reason: keep.reason,
      kind,
      ...(keepFacts ? { riichi: keep.riichi, dead: keep.dead } : {}),
    };
    this.startEntering();
    this.render();
  }

  bindStatic() {
    window.addEventListener("popstate", () => this.onBack());
    $("token-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const token = $("token-input").value.trim();
      if (!token) return;
      localStorage.setItem(TOKEN_KEY, token);
      location.reload();
    });
    for (const button of all("[data-tab]")) {
      button.addEventListener("click", () => this.showTab(button.dataset.tab));
    }
    for (const button of all("#outcomes [data-kind]")) {
      button.addEventListener("click", () => this.chooseOutcome(button.dataset.kind, false));
    }
    for (const button of all("#aa-outcomes [data-aa-kind]")) {
      button.addEventListener("click", () => this.chooseOutcome(button.dataset.aaKind, true));
    }
    for (const button of all("#keypad [data-key]")) {
      button.addEventListener("click", () => this.key(button.dataset.key));
    }
    $("entry-reason").addEventListener("input", (event) => {
      this.draft.reason = /** @type {HTMLInputElement} */ (event.target).value;
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
