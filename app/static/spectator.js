// @ts-check
// The spectator's phone: find players, follow them (a list kept on this phone, no account),
// and watch one player's table, total, rank and distance to the cut live.
// The pages come rendered; then only the feed's messages arrive (`player:ID` for figures,
// `table:N` for the hands at their table). The chart is the server's SVG, fetched again
// when the total or hands change. Nothing polls. Names are only set with textContent.

import { namesFor, spoken, t } from "/static/i18n.js";
import { LiveFeed, pointsShown } from "/static/live.js";
import { needsSentence } from "/static/needs.js";

const FOLLOWED_KEY = "wsom.followed";

if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/spectator-sw.js", { scope: "/" }).catch(() => {});
}

// -- the followed list, in localStorage

export function loadFollowed() {
  try {
    const list = JSON.parse(localStorage.getItem(FOLLOWED_KEY) || "[]");
    return Array.isArray(list) ? list.filter((e) => e && e.t && e.id) : [];
  } catch {
    return [];
  }
}

function saveFollowed(list) {
  localStorage.setItem(FOLLOWED_KEY, JSON.stringify(list));
}

function isFollowed(tournament, id) {
  return loadFollowed().some((e) => e.t === tournament && e.id === id);
}

function setFollowed(entry, follow) {
  const rest = loadFollowed().filter((e) => !(e.t === entry.t && e.id === entry.id));
  saveFollowed(follow ? [...rest, entry] : rest);
}

function followButton(entry, onChange) {
  const button = el("button", { className: "follow", type: "button" });
  const show = () => {
    const on = isFollowed(entry.t, entry.id);
    button.textContent = on ? "★" : "☆";
    button.setAttribute("aria-pressed", String(on));
    button.setAttribute(
      "aria-label",
      on ? t("Unfollow {name}", { name: entry.name }) : t("Follow {name}", { name: entry.name }),
    );
  };
  button.addEventListener("refresh", show); // the same player's star elsewhere changed
  button.addEventListener("click", (event) => {
    event.preventDefault();
    setFollowed(entry, !isFollowed(entry.t, entry.id));
    show();
    onChange?.();
  });
  show();
  return button;
}

// The seats and the limit hands, in the words of spectator.py (SEAT_WORDS, LIMIT_WORDS).
function seatWord(seat) {
  const words = { east: t("East"), south: t("South"), west: t("West"), north: t("North") };
  return words[seat] ?? seat;
}

function limitWord(limit) {
  const words = {
    mangan: t("mangan"),
    haneman: t("haneman"),
    baiman: t("baiman"),
    sanbaiman: t("sanbaiman"),
    yakuman: t("yakuman"),
  };
  return words[limit] ?? limit;
}

// What a screen reader says of the followed players (issue 17): politely, at most one
// announcement every ANNOUNCE_EVERY_MS, the newest figures of each player who changed since
// the last one, so a busy round never floods the reader.
const ANNOUNCE_EVERY_MS = 5000;
class Announcer {
  constructor(region) {
    this.region = region;
    this.pending = new Map(); // player key -> sentence
    this.timer = null;
    this.lastAt = 0;
  }

  say(key, sentence) {
    if (!this.region) return;
    this.pending.set(key, sentence);
    if (this.timer) return;
    const wait = Math.max(0, this.lastAt + ANNOUNCE_EVERY_MS - Date.now());
    this.timer = setTimeout(() => this.flush(), wait);
  }

  flush() {
    this.timer = null;
    this.lastAt = Date.now();
    this.region.textContent = [...this.pending.values()].join(" ");
    this.pending.clear();
  }
}

function standingNews(name, standing, ariari) {
  return t("{name}: rank {rank}, total {total}.", {
    name,
    rank: standing.rank,
    total: totalText(standing, ariari),
  });
}

// -- small helpers

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "className" || key === "textContent" || key === "href") node[key] = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function showStatus(status) {
  const badge = document.getElementById("feed-status");
  if (!badge) return;
  badge.className = `feed-status status-${status}`;
  badge.textContent =
    { live: t("● live"), stale: t("stale"), offline: t("offline") }[status] ?? t("connecting");
}

// Ari Ari figures (rule AA-17): whole points with thousands separators (live.js
// pointsShown); SC-5's 2 decimals otherwise. A true minus sign, as the server's.
function points(exactValue, signed = false) {
  return pointsShown(exactValue, { signed, minus: "−" });
}

function totalText(standing, ariari) {
  return ariari ? points(standing.total) : standing.shown.replace("-", "−");
}

// Mirrors the player page's template (spectator_player.html).
function distanceText(standing, advance, round, ariari = false) {
  if (!standing) return [t("Not ranked in round {round}", { round }), ""];
  if (standing.status === "advanced") return [t("Advanced"), "above"];
  if (standing.status === "eliminated") return [t("Eliminated in round {round}", { round }), "below"];
  if (standing.status === "finished") return [t("Final standing"), ""];
  if (standing.distance === null || standing.distance === undefined) return ["", ""]; // no cut
  const distance = ariari ? points(standing.distance) : standing.distance_shown;
  // The arrow says above or below without the colour (issue 17: colour is never the only sign).
  if (standing.above_cut === true) {
    return [
      advance
        ? t("▲ {distance} above the cut (top {advance} go through)", { distance, advance })
        : t("▲ {distance} above the cut", { distance }),
      "above",
    ];
  }
  if (standing.above_cut === false) {
    return [
      advance
        ? t("▼ {distance} to reach the cut (top {advance} go through)", { distance, advance })
        : t("▼ {distance} to reach the cut", { distance }),
      "below",
    ];
  }
  return ["", ""];
}

function unsubscribe(feed, channel) {
  // live.js has no unsubscribe: forget the channel here and tell the server.
  feed.channels.delete(channel);
  feed.states.delete(channel);
  feed.versions.delete(channel);
  if (feed.socket?.readyState === WebSocket.OPEN) {
    feed.socket.send(JSON.stringify({ type: "unsubscribe", channels: [channel] }));
  }
}

// -- the home page: search and the followed players

function home() {
  const tid = Number(document.getElementById("page").dataset.tournament) || null;
  document.getElementById("tournament-choice")?.addEventListener("change", (event) => {
    location.href = `/?t=${encodeURIComponent(/** @type {HTMLSelectElement} */ (event.target).value)}`;
  });

  const feeds = new Map(); // tournament -> LiveFeed of its followed players
  // Tournaments whose figures are Ari Ari points (spectator_home.html data-ariari)
  const ariariTournaments = new Set(
    (document.getElementById("page").dataset.ariari ?? "").split(" ").filter(Boolean).map(Number),
  );
  const replay = document.getElementById("replay");
  replay?.addEventListener(
    "toggle",
    () => {
      // loaded when opened: the player pages never carry it (their budget, tests/e2e)
      const followed = loadFollowed().filter((e) => e.t === tid).map((e) => String(e.id));
      import("/static/replay.js").then((m) => m.start(tid, followed, ariariTournaments.has(tid)));
    },
    { once: true },
  );
  const latest = new Map(); // "t:id" -> player state
  const news = new Announcer(document.getElementById("followed-news"));

  function feedFor(tournament) {
    if (!feeds.has(tournament)) {
      const feed = new LiveFeed(tournament, [], {
        onState: (channel, state) => {
          latest.set(`${tournament}:${state.player}`, state);
          fillFollowed(tournament, state);
        },
        onStatus: showStatus,
      });
      feeds.set(tournament, feed);
      showStatus("connecting"); // the page's first feed
      feed.connect();
    }
    return feeds.get(tournament);
  }

  function fillFollowed(tournament, state) {
    const row = document.querySelector(`#followed li[data-key="${CSS.escape(`${tournament}:${state.player}`)}"]`);
    if (!row || !state.registered) return;
    const standing = state.standing;
    const ariari = ariariTournaments.has(tournament);
    const shown = row.querySelector(".total").textContent;
    if (standing && shown !== "–" && shown !== totalText(standing, ariari)) {
      news.say(row.getAttribute("data-key"), standingNews(row.querySelector(".name").textContent, standing, ariari));
    }
    row.querySelector(".total").textContent = standing ? totalText(standing, ariari) : "–";
    // out of the event: where they finished (rule PR-1), not a dash
    const rank = standing?.rank ?? state.place?.rank;
    row.querySelector(".rank").textContent = rank ? t("#{rank}", { rank }) : "";
    const [text, side] = distanceText(standing, null, state.round, ariari);
    const distance = row.querySelector(".distance");
    distance.textContent = text;
    distance.className = `distance ${side}`;
  }

  function renderFollowed() {
    const list = document.getElementById("followed");
    const entries = loadFollowed();
    document.getElementById("followed-empty").hidden = entries.length > 0;
    list.replaceChildren(
      ...entries.map((entry) => {
        const key = `${entry.t}:${entry.id}`;
        const link = el(
          "a",
          { href: `/p/${encodeURIComponent(entry.id)}?t=${entry.t}` },
          el("span", { className: "name", textContent: entry.name, translate: "no" }),
          entry.other ? el("span", { className: "other-name", textContent: ` ${entry.other}`, translate: "no" }) : "",
          el("span", { className: "distance" }),
        );
        const figures = el(
          "span",
          { className: "figures" },
          el("span", { className: "total num", textContent: "–" }),
          el("span", { className: "rank num muted" }),
        );
        return el("li", { "data-key": key }, link, figures, followButton(entry, renderFollowed));
      }),
    );
    for (const [tournament, feed] of feeds) {
      for (const channel of [...feed.channels]) {
        if (!entries.some((e) => e.t === tournament && channel === `player:${e.id}`)) unsubscribe(feed, channel);
      }
    }
    for (const entry of entries) {
      const channel = `player:${entry.id}`;
      const feed = feedFor(entry.t);
      if (!feed.channels.has(channel)) feed.subscribe(channel);
      const held = latest.get(`${entry.t}:${entry.id}`);
      if (held) fillFollowed(entry.t, held);
    }
    // Results show the same stars: keep them in step.
    for (const button of document.querySelectorAll("#results .follow")) button.dispatchEvent(new Event("refresh"));
  }

  let pending = null;
  let timer = null;
  async function find(query) {
    const results = document.getElementById("results");
    const none = document.getElementById("no-results");
    if (!tid || !results) return;
    pending?.abort();
    if (!query.trim()) {
      results.replaceChildren();
      none.hidden = true;
      return;
    }
    pending = new AbortController();
    let answer;
    try {
      const response = await fetch(`/search?t=${tid}&q=${encodeURIComponent(query)}`, { signal: pending.signal });
      if (!response.ok) return;
      answer = await response.json();
    } catch {
      return; // aborted by a newer query, or offline
    }
    none.hidden = answer.results.length > 0;
    results.replaceChildren(
      ...answer.results.map((r) => {
        const [shown, other] = namesFor(r.name, r.local_name);
        const entry = { t: answer.tournament, id: r.id, name: shown, ...(other ? { other } : {}) };
        const button = followButton(entry, renderFollowed);
        const link = el(
          "a",
          { href: r.url },
          el("span", { className: "name", textContent: shown, translate: "no" }),
          other ? el("span", { className: "other-name", textContent: ` ${other}`, translate: "no" }) : "",
          el("span", { className: "muted", textContent: `${r.country ?? ""} · ${r.id}`, translate: "no" }),
        );
        return el("li", { "data-player": r.id }, link, button);
      }),
    );
  }

  const input = /** @type {HTMLInputElement | null} */ (document.getElementById("q"));
  if (input) {
    input.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => find(input.value), 200);
    });
    input.form.addEventListener("submit", (event) => {
      event.preventDefault();
      clearTimeout(timer);
      find(input.value);
      input.blur(); // put the phone's keyboard away to show the results
    });
    if (input.value.trim()) find(input.value);
  }
  renderFollowed();
}

// -- a player's page

function player() {
  const data = JSON.parse(document.getElementById("page-data").textContent);
  const pid = data.player;
  const tid = data.tournament;
  const names = data.names;
  let seats = data.seats;
  let current = data.current; // {segment, table}: where the player is, or goes next
  let lastTotal = data.total;
  let handsSeen = data.hands_seen;

  const entry = { t: tid, id: pid, name: data.name, ...(data.other_name ? { other: data.other_name } : {}) };
  const news = new Announcer(document.getElementById("player-news"));
  const star = document.getElementById("follow");
  star.replaceWith(followButton(entry));

  if (!data.live) return; // out of the event: nothing here changes any more

  const tableChannel = () => (current ? `table:${current.table}` : null);
  const channels = [`player:${pid}`, tableChannel()].filter(Boolean);
  const feed = new LiveFeed(tid, channels, {
    onState: (channel, state) => {
      if (channel === `player:${pid}`) onPlayer(state);
      else if (channel === tableChannel()) onTable(state);
    },
    onStatus: showStatus,
  }).connect();

  function onPlayer(state) {
    if (!state.registered) return;
    if (state.round !== data.round) {
      location.reload(); // a new round: new tables, a new point on the chart
      return;
    }
    seats = state.seats;
    if (!current && seats.length) {
      location.reload(); // seated at last: the page draws the tables
      return;
    }
    const standing = state.standing;
    const before = document.getElementById("total").textContent;
    if (standing && before !== totalText(standing, data.ariari) && isFollowed(tid, pid)) {
      news.say(pid, standingNews(data.name, standing, data.ariari));
    }
    document.getElementById("total").textContent = standing ? totalText(standing, data.ariari) : "–";
    document.getElementById("rank").textContent = standing ? standing.rank : "–";
    if (standing) {
      const [text, side] = distanceText(standing, data.advance, state.round, data.ariari);
      const distance = document.getElementById("distance");
      distance.textContent = text;
      distance.className = `cut-distance ${side}`;
    }
    const needs = document.getElementById("needs");
    if (needs) {
      needs.textContent = needsSentence(state.needs, data.ariari);
      needs.hidden = !needs.textContent;
    }
    if (standing && standing.total !== lastTotal) {
      lastTotal = standing.total;
      refreshChart();
    }
    const seat = current && seats.find((s) => s.segment === current.segment);
    if (seat && seat.table !== current.table) moveTo(seat); // the judge reseated the table
    else if (seat) document.getElementById("where-seat").textContent = seatWord(seat.seat_now); // SE-10
  }

  function onTable(state) {
    if (!current || state.table !== current.table || state.segment == null) return;
    if (state.segment < current.segment) return; // still the earlier players at this table
    if (state.segment > current.segment) {
      const next = nextSeat(state.segment);
      if (next) moveTo(next);
      return;
    }
    renderHands(current.segment, state.hands, state.game);
    document.getElementById("where-hands").textContent = state.hands.length;
    if (state.hands.length !== handsSeen) {
      handsSeen = state.hands.length;
      refreshChart(); // a draw moves no points but is a hand on the chart
    }
    if (state.next_hand === null && state.hands.length > 0) {
      const next = nextSeat(current.segment + 1);
      if (next) moveTo(next);
    }
  }

  function nextSeat(fromSegment) {
    return [...seats].sort((a, b) => a.segment - b.segment).find((s) => s.segment >= fromSegment);
  }

  function moveTo(seat) {
    const old = tableChannel();
    current = { segment: seat.segment, table: seat.table };
    handsSeen = document.querySelectorAll(`table.hands[data-segment="${seat.segment}"] tbody tr:not(.empty)`).length;
    document.getElementById("where-table").textContent = t("Table {table}", { table: seat.table });
    document.getElementById("where-seat").textContent = seatWord(seat.seat_now);
    const counted = el("span", { id: "where-hands", textContent: String(handsSeen) });
    const sentence = data.ariari
      ? t("{word} {segment} of {segments} · {played} hands played", {
          word: data.segment_word,
          segment: seat.segment,
          segments: data.segments,
        })
      : t("{word} {segment} of {segments} · {played} of {planned} hands played", {
          word: data.segment_word,
          segment: seat.segment,
          segments: data.segments,
          planned: data.planned,
        });
    const [before, after = ""] = sentence.split("{played}");
    document.getElementById("where-segment").replaceChildren(before, counted, after);
    document.querySelector(`table.hands[data-segment="${seat.segment}"]`)?.removeAttribute("hidden");
    const later = [...seats].sort((a, b) => a.segment - b.segment).filter((s) => s.segment > seat.segment);
    const next = document.getElementById("where-next");
    next.hidden = later.length === 0;
    next.textContent = `${t("Then:")} ${later
      .map((s) => t("table {table} ({word} {segment})", { table: s.table, word: data.segment_word, segment: s.segment }))
      .join(t(", "))}`;
    if (tableChannel() !== old) {
      unsubscribe(feed, old);
      feed.subscribe(tableChannel());
    }
  }

  // app/web/spectator.py _ariari_win_text: "Won ron 3 fan 30 fu", "Ben tsumo mangan"
  function ariAriWinText(result) {
    const words = (win) =>
      win.limit
        ? limitWord(win.limit)
        : win.fu
          ? t("{fan} fan {fu} fu", { fan: win.fan, fu: win.fu })
          : t("{fan} fan", { fan: win.fan });
    const wins = result.kind === "ron" ? result.wins : [result];
    return wins
      .map((win) => {
        const value = words(win);
        const name = names[String(win.winner)] ?? win.winner;
        const own = String(win.winner) === pid;
        if (result.kind === "ron") {
          return own ? t("Won ron {value}", { value }) : t("{name} ron {value}", { name, value });
        }
        return own ? t("Won tsumo {value}", { value }) : t("{name} tsumo {value}", { name, value });
      })
      .join(" \u00b7 ");
  }

  // app/web/spectator.py game_end_text: what the game's end added to its last hand (AA-27)
  function gameEndText(game, hand) {
    if (!game?.ended || hand.hand !== game.hands) return "";
    const row = (game.players ?? []).find((p) => String(p.player) === pid);
    if (!row) return "";
    const ordinals = { 1: t("1st"), 2: t("2nd"), 3: t("3rd"), 4: t("4th") };
    const parts = [ordinals[row.place] ?? String(row.place)];
    if (row.bets) parts.push(t("bets {points}", { points: points(row.bets, true) }));
    parts.push(t("uma {points}", { points: points(row.uma, true) }));
    const comma = t(", "); // not in the t() below: extraction misses it there
    return ` \u00b7 ${t("game end: {parts}", { parts: parts.join(comma) })}`;
  }

  function resultText(hand, game) {
    return handText(hand) + gameEndText(game, hand);
  }

  function handText(hand) {
    const kind = hand.result?.kind; // an Ari Ari table's result (rules AA-9, AA-10)
    if (kind === "ron" || kind === "tsumo") return ariAriWinText(hand.result);
    if (kind === "exhaustive_draw") return t("Draw");
    if (kind === "chombo") {
      const offender = String(hand.result.offender);
      return offender === pid ? t("Chombo") : t("{name} chombo", { name: names[offender] ?? offender });
    }
    if (hand.winner === null || hand.winner === undefined) {
      return Object.values(hand.deltas).every((d) => d === 0) ? t("Draw") : t("Ruling");
    }
    const name = names[String(hand.winner)] ?? hand.winner;
    const own = String(hand.winner) === pid;
    if (hand.value === null || hand.value === undefined) return own ? t("Won") : t("{name} won", { name });
    const value = hand.value;
    return own ? t("Won {value}", { value }) : t("{name} won {value}", { name, value });
  }

  function renderHands(segment, hands, game) {
    const table = document.querySelector(`table.hands[data-segment="${segment}"]`);
    if (!table) return;
    const rows = [...hands].reverse().map((hand) => {
      const delta = hand.deltas[pid] ?? 0;
      const sign = delta > 0 ? "plus" : delta < 0 ? "minus" : "";
      return el(
        "tr",
        { className: String(hand.winner) === pid ? "won" : "" },
        el("td", { className: "n", textContent: String(hand.hand) }),
        el("td", { textContent: resultText(hand, game) }),
        el("td", {
          className: `num ${sign}`,
          textContent: data.ariari ? points(delta, true) : delta > 0 ? `+${delta}` : String(delta).replace("-", "−"),
        }),
      );
    });
    if (!rows.length) {
      rows.push(el("tr", { className: "empty" }, el("td", { colspan: "3", className: "muted", textContent: t("No hand yet") })));
    }
    /** @type {HTMLTableElement} */ (table).tBodies[0].replaceChildren(...rows);
  }

  let chartTimer = null;
  function refreshChart() {
    // Several messages may come together (the player's total and their table): one fetch.
    clearTimeout(chartTimer);
    chartTimer = setTimeout(async () => {
      try {
        const response = await fetch(spoken(`/p/${encodeURIComponent(pid)}/chart?t=${tid}`));
        if (response.ok) document.getElementById("chart").innerHTML = await response.text();
      } catch {
        // offline: the feed reconnects and the next change fetches it again
      }
    }, 300);
  }
}

const kind = document.getElementById("page")?.dataset.page;
if (kind === "home") home();
else if (kind === "player") player();
