// @ts-check
// The organizer's console (issue 6, admin.html).
//
// The admin token is asked for once and kept in sessionStorage (this tab only). Every call
// to the admin API carries it as a bearer header, and so do the console's own routes under
// /admin/{tid}/...: slips, token QR codes and the results CSV are fetched with the header and
// shown as blobs, so the token never sits in a URL. Names are only ever set as text.

import { LiveFeed, formatClock, pointsShown, secondsLeft } from "/static/live.js";
import { prizeAmounts, runLimited } from "/static/admin/pure.js";

const TOKEN_KEY = "wsom.adminToken";
const REFRESH_AFTER_MS = 1500; // at most one reload of the console's data per this, when live
const TOKEN_REQUESTS_AT_ONCE = 8;

// The page's own elements (admin.html): typed loosely, each is the element the page has.
/** @type {(selector: string, root?: ParentNode) => any} */
const $ = (selector, root = document) => root.querySelector(selector);

const view = {
  tid: Number($("#console").dataset.tournament) || null,
  summary: null, // GET /api/tournaments/{tid}
  state: null, // GET /admin/{tid}/state
  names: new Map(), // String(player id) -> registration
  live: null, // the standings channel: the current round, live
  clocks: {}, // the clocks channel's rows, by table
  shownRound: null, // the round section 8 shows; null: the current round, from the feed
  shownStandings: null, // what section 8 shows when it is not the live round
  feed: null,
  cards: new Map(), // table -> judge card, in memory only: a token is shown once
  links: null, // GET /admin/{tid}/links: every page of the tournament with its QR code
  refreshTimer: null,
  blobs: new Map(), // what -> object URL, revoked when replaced
};

// -- small DOM helpers: text is always set as text -------------------------------------

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function escapeHtml(text) {
  const entities = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
  return String(text).replace(/[&<>"']/g, (c) => entities[c]);
}

function nameOf(player) {
  const registered = view.names.get(String(player));
  return registered ? `${registered.name} (${player})` : String(player);
}

const names = (players) => players.map(nameOf).join(", ");

function activity(text, ok = true) {
  const time = new Date().toLocaleTimeString();
  $("#activity").prepend(el("li", { class: ok ? null : "failed" }, `${time} · ${text}`));
}

// -- the API -----------------------------------------------------------------------------

/**
 * @param {string} path
 * @param {{ method?: string, json?: any, content?: any, type?: string, auth?: boolean }} [options]
 */
async function request(path, { method = "GET", json, content, type, auth = true } = {}) {
  /** @type {Record<string, string>} */
  const headers = {};
  if (auth) headers.Authorization = `Bearer ${sessionStorage.getItem(TOKEN_KEY)}`;
  let body;
  if (json !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(json);
  } else if (content !== undefined) {
    headers["Content-Type"] = type;
    body = content;
  }
  let response;
  try {
    response = await fetch(path, { method, headers, body, cache: "no-store" });
  } catch (error) {
    throw new Error(`the server did not answer (${error.message})`, { cause: error });
  }
  if (!response.ok) {
    const problem = await response.json().catch(() => null);
    if (response.status === 401 && auth) {
      signOut("The server refused the admin token. Enter it again.");
    }
    // The server's detail names the field and the rule (app/web/errors.py).
    throw new Error(problem?.detail ?? `the server answered ${response.status}`);
  }
  return response;
}

const getJSON = async (path, options) => (await request(path, options)).json();
const post = (path, json) => getJSON(path, { method: "POST", json });
const api = (suffix = "") => `/api/tournaments/${view.tid}${suffix}`;
const currentRound = () => view.summary?.current_round ?? 1;

// -- the token gate ------------------------------------------------------------------------

function showGate(message = "") {
  $("#gate").hidden = false;
  $("#steps").hidden = true;
  $("#sign-out").hidden = true;
  $("#gate output").textContent = message;
  $("#token-input").focus();
}

function signOut(message = "") {
  sessionStorage.removeItem(TOKEN_KEY);
  view.feed?.close();
  view.feed = null;
  view.cards.clear();
  $("#token-cards").replaceChildren();
  $("#live-tokens").replaceChildren();
  showGate(message);
}

async function showConsole() {
  $("#gate").hidden = true;
  $("#steps").hidden = false;
  $("#sign-out").hidden = false;
  await loadTournamentList();
  if (view.tid) {
    await openTournament(view.tid, false).catch((error) => {
      $("#pick-form output").textContent = error.message;
    });
  }
}

// -- forms ---------------------------------------------------------------------------------

// Every form: its errors under it (the server's detail names the field and the rule), the
// form inert while its request runs, so a double click sends nothing twice, and the
// console reloaded after a form that changes the tournament.
function onSubmit(id, handler, { changes = true } = {}) {
  const form = /** @type {HTMLFormElement} */ (document.getElementById(id));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const problem = $("output.problem", form);
    problem.textContent = "";
    form.inert = true;
    try {
      await handler(new FormData(form), /** @type {HTMLButtonElement | null} */ (event.submitter)?.value ?? "", form);
    } catch (error) {
      problem.textContent = error.message;
      activity(`${form.dataset.label}: ${error.message}`, false);
      return;
    } finally {
      form.inert = false;
    }
    if (changes) await reload();
  });
}

// A reload that fails says so in the activity list: the change itself went through.
const reload = () => refresh().catch((error) => activity(`Reloading: ${error.message}`, false));

const text = (data, name) => String(data.get(name) ?? "").trim();
const integer = (data, name) => Number.parseInt(text(data, name), 10);
// A datetime-local input's value (the hall's local time) as the server's ISO 8601, in UTC.
const isoTime = (data, name) => new Date(text(data, name)).toISOString().replace(/\.\d{3}Z$/, "Z");
// A datetime-local input's value (local time, to the second) for a moment in ms.
const localInputTime = (ms) => {
  const at = new Date(ms);
  const two = (n) => String(n).padStart(2, "0");
  return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())}` +
    `T${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`;
};

function wireForms() {
  onSubmit("gate-form", async (data) => {
    sessionStorage.setItem(TOKEN_KEY, text(data, "token"));
    await request("/admin/session");
    $("#gate-form").reset();
    await showConsole();
  }, { changes: false });

  onSubmit("pick-form", async (data) => {
    const tid = Number(data.get("tournament"));
    if (tid) await openTournament(tid, true);
  }, { changes: false });

  $("#format-kind").addEventListener("change", (event) => {
    for (const part of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("#create-form [data-kind]"))) {
      part.hidden = part.dataset.kind !== /** @type {HTMLSelectElement} */ (event.target).value;
    }
  });

  onSubmit("create-form", async (data, _, form) => {
    /** @type {any} */
    let format = text(data, "kind");
    if (format === "custom") {
      const advance = text(data, "advance").split(/[\s,]+/).filter(Boolean).map(Number);
      format = { preset: text(data, "preset"), advance };
    } else if (format === "json") {
      try {
        format = JSON.parse(text(data, "format_json"));
      } catch (error) {
        throw new Error(`the format is not valid JSON: ${error.message}`, { cause: error });
      }
    }
    const created = await post("/api/tournaments", { name: text(data, "name"), format });
    activity(`Created tournament ${created.id}, ${text(data, "name")}`);
    form.reset();
    $("#format-kind").dispatchEvent(new Event("change")); // the preset's fields again
    $("#create").open = false;
    await loadTournamentList();
    await openTournament(created.id, true);
  }, { changes: false });

  $("#players-file").addEventListener("change", async (event) => {
    const [file] = event.target.files;
    if (!file) return;
    const problem = $("#players-form output");
    problem.textContent = "";
    // file.text() reads any bytes as UTF-8 and puts "�" where they are not: a CSV saved in
    // Excel's Windows encoding would register "Jos� Garc�a" with no word of warning.
    try {
      $("#players-text").value = new TextDecoder("utf-8", { fatal: true }).decode(
        await file.arrayBuffer(),
      );
    } catch {
      $("#players-text").value = "";
      problem.textContent =
        `${file.name} is not UTF-8 text, so its accented and CJK names would be garbled: ` +
        "save it again as “CSV UTF-8” (Excel: File › Save as) and choose it again";
      activity(`Players: ${problem.textContent}`, false);
      event.target.value = "";
    }
  });

  onSubmit("players-form", async (data, _, form) => {
    const body = text(data, "text");
    if (!body) throw new Error("paste a CSV or choose a file first");
    let answer;
    if (body.startsWith("[")) {
      let players;
      try {
        players = JSON.parse(body);
      } catch (error) {
        throw new Error(`the list is not valid JSON: ${error.message}`, { cause: error });
      }
      answer = await post(api("/players"), players);
    } else {
      const csv = { method: "POST", content: body, type: "text/csv" };
      answer = await getJSON(api("/players.csv"), csv);
    }
    activity(`Registered ${answer.lines.length} players`);
    form.reset();
  });

  onSubmit("prizes-form", async (data) => {
    const amounts = prizeAmounts(text(data, "amounts"));
    await post(api("/prizes"), { amounts });
    activity(`Prizes set for ${amounts.length} places`);
  });

  onSubmit("rate-form", async (data) => {
    await post(api("/carry-over-rate"), { rate: text(data, "rate") });
    activity(`Round 1 → 2 carry-over rate set to ${text(data, "rate")}`);
  });

  onSubmit("draw-form", async (data) => {
    const seed = text(data, "seed");
    const round = currentRound();
    const redraw = Boolean(view.state.draw);
    if (redraw && !data.get("redraw")) {
      // every seat changes: slips printed from the draw it replaces are wrong
      throw new Error("tick “replace the draw” to redraw: every seat changes, print new slips");
    }
    // A redraw names the draw it replaces: the server refuses it if another console has
    // drawn the round meanwhile, or drawn it again (rule SE-1).
    const body = { ...(seed ? { seed } : {}), ...(redraw ? { replaces: view.state.draw.seed } : {}) };
    const drawn = await post(api(`/rounds/${round}/draw`), body);
    activity(
      `Round ${drawn.round} ${redraw ? "redrawn" : "drawn"} with seed ${drawn.seed}` +
        `${seed ? "" : " (drawn by the server)"}: ` +
        `${drawn.seatings.length} seatings, ${drawn.repeats} unavoidable repeat meetings`,
    );
    $("#slips-round").value = drawn.round;
  });

  onSubmit("slips-form", async (data, as) => {
    const round = integer(data, "round");
    const path = `/admin/${view.tid}/slips/${round}`;
    if (as === "csv") {
      const response = await request(`${path}.csv`);
      download(await response.blob(), `slips-${view.tid}-round-${round}.csv`);
      activity(`Slips of round ${round} downloaded as CSV`);
      return;
    }
    // Opened now, inside the click: a window opened after the fetch may be blocked.
    const opened = window.open("", "_blank");
    try {
      const response = await request(path);
      const url = blobUrl("slips", await response.blob());
      if (opened) opened.location.href = url;
      $("#slips-link").replaceChildren(
        el("a", { href: url, target: "_blank" }, `Slips of round ${round}`),
        " (open again to print)",
      );
      activity(`Slips of round ${round} opened for printing`);
    } catch (error) {
      opened?.close();
      throw error;
    }
  }, { changes: false });

  $("#segments").addEventListener("click", async (event) => {
    const button = event.target.closest("button[data-act]");
    if (!button) return;
    const problem = $("#segments-problem");
    problem.textContent = "";
    const { act, segment, group } = button.dataset;
    const body = { round: currentRound(), segment: Number(segment) };
    if (group) body.group = group;
    const where = `segment ${segment}${group ? ` of group ${group}` : ""}, round ${body.round}`;
    if (act === "close") {
      // A closed segment is never reopened (rule CL-3): its tables take no new deal or hand.
      const shown = view.state.segments.find(
        (s) => s.segment === Number(segment) && (s.group ?? "") === group,
      );
      const notStarted = shown && shown.state !== "running";
      const question =
        `Close ${where}? Its tables take no new deal or hand from now on, and it cannot be ` +
        "reopened." +
        (notStarted ? ` It has not started (${shown.state}): its tables would never play it.` : "");
      if (!window.confirm(question)) return;
    }
    button.disabled = true;
    try {
      await post(api(`/segments/${act}`), body);
      activity(act === "open" ? `Opened ${where}: its clocks run` : `Closed ${where}`);
      await reload();
    } catch (error) {
      button.disabled = false;
      problem.textContent = error.message;
      activity(`${where}: ${error.message}`, false);
    }
  });

  onSubmit("schedule-form", async (data) => {
    const body = {
      round: currentRound(),
      segment: integer(data, "segment"),
      start: isoTime(data, "start"),
    };
    if (view.state.groups.length) body.group = text(data, "group");
    await post(api("/schedule"), body);
    const group = body.group ? ` of group ${body.group}` : "";
    activity(`Segment ${body.segment}${group} scheduled to start at ${body.start}`);
  });

  onSubmit("penalty-form", async (data) => {
    const player = view.names.get(text(data, "player"))?.id;
    if (player === undefined) throw new Error("choose a player");
    const points = integer(data, "points");
    await post(api("/penalties"), {
      round: currentRound(),
      player,
      points,
      reason: text(data, "reason"),
    });
    activity(`Penalty ${points} for ${nameOf(player)}: ${text(data, "reason")}`);
  });

  onSubmit("extension-form", async (data) => {
    const body = {
      round: currentRound(),
      segment: integer(data, "segment"),
      table: integer(data, "table"),
      minutes: integer(data, "minutes"),
    };
    await post(api("/extensions"), body);
    activity(`Table ${body.table}, segment ${body.segment}: ${body.minutes} more minutes`);
  });

  onSubmit("play-all-form", async (data) => {
    const body = {
      round: currentRound(),
      segment: integer(data, "segment"),
      table: integer(data, "table"),
      reason: text(data, "reason"),
    };
    await post(api("/play-all"), body);
    activity(`Table ${body.table}, segment ${body.segment} plays every hand: ${body.reason}`);
  });

  const overrideForm = $("#override-form");
  const overrideType = $("select[name=type]", overrideForm);
  const showOverrideHand = () => {
    $("[data-override-hand]", overrideForm).hidden = overrideType.value !== "deal";
  };
  overrideType.addEventListener("change", showOverrideHand);
  showOverrideHand();
  // The time the head judge decides, shown in the hall's local time; it starts at "now".
  $("input[name=time]", overrideForm).addEventListener("focus", (event) => {
    if (!event.target.value) event.target.value = localInputTime(view.feed ? view.feed.serverNow() : Date.now());
  });

  onSubmit("override-form", async (data) => {
    const body = {
      type: text(data, "type"),
      round: currentRound(),
      segment: integer(data, "segment"),
      table: integer(data, "table"),
      time: isoTime(data, "time"),
      reason: text(data, "reason"),
    };
    if (body.type === "deal") body.hand = integer(data, "hand");
    await post(api("/overrides"), body);
    const what = body.type === "deal" ? `the deal of hand ${body.hand}` : "an early start";
    activity(`Head judge: table ${body.table}, segment ${body.segment}, ${what} at ${body.time}: ${body.reason}`);
  });

  onSubmit("links-form", async (data) => {
    await loadLinks(text(data, "player"), text(data, "table"));
  }, { changes: false });

  onSubmit("tokens-form", async (data, which) => {
    const tables = which === "all" ? roundTables() : [Number(which)];
    const how = { revoke_earlier: data.get("replace") === "on" };
    if (text(data, "expires")) how.expires_at = isoTime(data, "expires");
    await runLimited(tables, TOKEN_REQUESTS_AT_ONCE, (table) => issueToken(table, how));
    activity(`Judges' tokens issued for table${tables.length > 1 ? "s" : ""} ${tables.join(", ")}`);
    await loadLiveTokens();
  }, { changes: false });

  // A Revoke button's value: "token:ID" (one token) or "table:N" (every live token of it).
  onSubmit("revoke-form", async (_, which) => {
    const [kind, value] = which.split(":");
    const path = kind === "table" ? api(`/tables/${value}/tokens`) : api(`/tokens/${value}`);
    const answer = await getJSON(path, { method: "DELETE" });
    for (const token of answer.revoked) dropCard(token.id);
    const ids = answer.revoked.map((token) => token.id);
    activity(`Revoked ${ids.length} table token${ids.length === 1 ? "" : "s"} (${ids.join(", ")})`);
    await loadLiveTokens();
  }, { changes: false });
  $("#print-tokens").addEventListener("click", printTokenCards);

  $("#standings-round").addEventListener("change", async (event) => {
    const round = Number(event.target.value);
    view.shownRound = round === currentRound() ? null : round;
    const problem = $("#standings-form output");
    problem.textContent = "";
    await loadStandings().catch((error) => {
      problem.textContent = error.message;
    });
  });
  $("#standings-all").addEventListener("change", renderStandings);

  $("#end-arm").addEventListener("click", armRoundEnd);
  $("#end-cancel").addEventListener("click", () => {
    $("#end-confirm").hidden = true;
  });
  onSubmit("end-form", async (data) => {
    const seed = text(data, "draw_seed");
    const round = currentRound();
    const body = seed ? { draw_seed: seed } : {};
    if (!$("#end-unfinished").hidden) {
      // The server refuses this round end without both (it lists the tables again).
      if (!data.get("confirm_unfinished")) {
        throw new Error("tick the box to end the round with these tables as they are");
      }
      if (!text(data, "reason")) throw new Error("give the reason, for the log");
      Object.assign(body, { confirm_unfinished: true, reason: text(data, "reason") });
    }
    const ended = await post(api(`/rounds/${round}/end`), body);
    $("#end-confirm").hidden = true;
    $("#end-form").reset();
    showRoundEnd(ended);
    view.shownRound = ended.round;
    view.shownStandings = ended.standings;
    activity(
      `Round ${ended.round} ended` +
        (ended.reason
          ? ` with ${ended.unfinished.length} table(s) unfinished: ${ended.reason}`
          : "") +
        (ended.draw_seed ? `; the draw at the cut used seed ${ended.draw_seed}` : ""),
    );
  });

  onSubmit("exports-form", async (_, what) => {
    if (what === "log") {
      const response = await request(api("/log"), { auth: false });
      download(await response.blob(), `tournament-${view.tid}.jsonl`);
      activity("Log downloaded (JSON Lines)");
    } else {
      const response = await request(`/admin/${view.tid}/results.csv`);
      download(await response.blob(), `results-${view.tid}.csv`);
      activity("Results downloaded as CSV");
    }
  }, { changes: false });

  $("#sign-out").addEventListener("click", () => signOut("Signed out."));
  window.addEventListener("popstate", () => location.reload());
}

// -- blobs: printouts and downloads ------------------------------------------------------------

function blobUrl(what, blob) {
  const old = view.blobs.get(what);
  if (old) URL.revokeObjectURL(old);
  const url = URL.createObjectURL(blob);
  view.blobs.set(what, url);
  return url;
}

function download(blob, filename) {
  const link = el("a", { href: blobUrl("download", blob), download: filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
}

// -- loading ---------------------------------------------------------------------------------

async function loadTournamentList() {
  const listed = await getJSON("/api/tournaments", { auth: false });
  const pick = $("#pick");
  pick.replaceChildren(
    el("option", { value: "" }, listed.length ? "choose…" : "no tournament yet"),
    ...listed.map((t) =>
      el("option", { value: t.id, selected: t.id === view.tid }, `${t.id} · ${t.name}`),
    ),
  );
}

async function openTournament(tid, push) {
  view.tid = tid;
  view.live = null;
  view.clocks = {};
  view.shownRound = null;
  view.shownStandings = null;
  view.cards.clear();
  $("#token-cards").replaceChildren();
  $("#live-tokens").replaceChildren();
  $("#round-end").hidden = true;
  if (push) history.pushState({}, "", `/admin/${tid}`);
  $("#pick").value = String(tid);
  view.feed?.close();
  view.feed = null;
  $("#tournament-steps").hidden = true;
  $("#summary").hidden = true;
  await refresh(); // a tournament that is not there stops here, before any feed
  $("#pick-form output").textContent = "";
  view.links = null;
  $("#links-player").value = "";
  await loadLinks().catch((error) => {
    $("#links-form output").textContent = error.message;
  });
  await loadLiveTokens().catch((error) => {
    $("#revoke-form output").textContent = error.message;
  });
  view.feed = new LiveFeed(tid, ["standings", "clocks"], {
    onState: liveState,
    // Every change bumps the tournament's version, and the heartbeat (every 5 s) names it:
    // a draw, a schedule, the prizes given in another console tab move no standings, and
    // this tab would otherwise offer a draw or an "Open now" that is no longer there.
    onHeartbeat: (message) => {
      if (typeof message.version === "number" && message.version > (view.summary?.version ?? 0)) {
        refreshSoon();
      }
    },
    onStatus: (status) => {
      const badge = $("#feed-status");
      badge.hidden = false;
      badge.className = `feed status-${status}`;
      badge.textContent = `feed ${status}`;
    },
  }).connect();
}

async function refresh() {
  if (!view.tid) return;
  clearTimeout(view.refreshTimer);
  view.refreshTimer = null;
  const [summary, state] = await Promise.all([
    getJSON(api(), { auth: false }),
    getJSON(`/admin/${view.tid}/state`),
  ]);
  view.summary = summary;
  view.state = state;
  view.names = new Map(state.players.map((player) => [String(player.id), player]));
  renderTournament();
  // The player card's links wait for a first registration.
  if (view.links?.player === null && state.players.length) await loadLinks();
  await loadStandings();
}

// The feed says something changed (a judge's hand, another console): reload, but not more
// often than REFRESH_AFTER_MS.
function refreshSoon() {
  if (view.refreshTimer !== null) return;
  view.refreshTimer = setTimeout(() => {
    view.refreshTimer = null;
    refresh().catch((error) => activity(`Reloading: ${error.message}`, false));
  }, REFRESH_AFTER_MS);
}

function liveState(channel, data, message) {
  if (channel === "clocks") {
    view.clocks = data.tables ?? {};
    renderClocks();
    // a segment opened or closed, a draw's tables, an extension: the console's own state too
    if (message.version > (view.summary?.version ?? 0)) refreshSoon();
    return;
  }
  view.live = data;
  if (view.shownRound === null) renderStandings();
  if (message.version > (view.summary?.version ?? 0)) refreshSoon();
}

async function loadStandings() {
  const round = view.shownRound;
  if (round !== null) {
    const answer = await getJSON(api(`/standings?round=${round}`), { auth: false });
    view.shownStandings = answer.rounds[0];
  }
  renderStandings();
}

// -- rendering -------------------------------------------------------------------------------

function renderTournament() {
  const { summary } = view;
  $("#tournament-title").textContent = summary.name;
  $("#version").textContent = `version ${summary.version}`;
  $("#summary").hidden = false;
  $("#tournament-steps").hidden = false;
  $("#facts").replaceChildren(
    ...[
      ["Format", summary.format],
      ["Players", `${summary.players} registered`],
      ["Round", summary.complete ? "the tournament is complete" : `round ${summary.current_round}`],
    ].flatMap(([term, value]) => [el("dt", {}, term), el("dd", {}, value)]),
  );
  $("#rounds tbody").replaceChildren(
    ...summary.rounds.map((r) =>
      el(
        "tr",
        { class: r.round === summary.current_round ? "current" : null },
        el("td", {}, r.advance === null ? `${r.round} (final)` : r.round),
        el("td", {}, `${r.segments} ${plural(r.segment_kind, r.segments)}`,
          // an Ari Ari game ends by its rules, not after a number of hands (rule AA-12)
          r.segment_kind === "game" ? "" : ` × ${r.hands_per_segment} hands`),
        el("td", { class: "num" }, r.advance ?? "–"),
        el("td", {}, r.ended ? "ended" : r.begun ? "being played" : "–"),
      ),
    ),
  );
  renderPlayers();
  renderMoney();
  renderDraw();
  renderSegments();
  renderRulings();
  renderTokenTables();
  renderLinkChoices();
  renderRoundChoices();
  $("#end-arm").textContent = `End round ${summary.current_round}…`;
  $("#end-button").textContent = `End round ${summary.current_round}`;
  $("#end-arm").disabled = summary.complete;
  $("#results-page").href = `/admin/${view.tid}/results`;
}

const plural = (kind, count) => (count === 1 ? kind : kind === "half" ? "halves" : `${kind}s`);

function renderPlayers() {
  const players = view.state.players;
  const grouped = view.state.registration_groups.length > 0; // rule FM-2
  const groups = {};
  for (const player of players) groups[player.group] = (groups[player.group] ?? 0) + 1;
  const byGroup = Object.entries(groups)
    .map(([group, count]) => `group ${group} ${count}`)
    .join(", ");
  $("#players-count").textContent = players.length
    ? `${players.length} registered${grouped ? `: ${byGroup}` : ""}`
    : "Nobody is registered yet.";
  $("#players-no-group").hidden = grouped;
  $("#players-text").placeholder = grouped
    ? "id,name,group,country,substitute,local_name\n1,Takeshi Yamada,A,JP,,山田 剛\n2,Bram de Vries,B,NL,,"
    : "id,name,country,substitute,local_name\n1,Takeshi Yamada,JP,,山田 剛\n2,Bram de Vries,NL,,";
  $("#players tbody").replaceChildren(
    ...players.map((p) =>
      el(
        "tr",
        {},
        el("td", {}, p.id),
        el("td", {}, p.name),
        el("td", {}, p.local_name ?? ""),
        el("td", {}, grouped ? p.group : "–"),
        el("td", {}, p.country ?? ""),
        el("td", {}, p.substitute ? "substitute" : ""),
      ),
    ),
  );
}

function renderMoney() {
  const { prizes, round_one_rate: rate, rate_locked: locked } = view.state;
  $("#prizes-now").textContent = prizes.length
    ? `Now: ${prizes.map((amount, i) => `${i + 1}. ${amount}`).join(" · ")}`
    : "No prize table yet.";
  const why = locked ? ": locked, round 1 has started (rule SC-3)" : "";
  $("#rate-now").textContent = `Now ${rate}${why}.`;
}

// The server refuses a draw without a full table of players, and a redraw once the round
// has started (rules FM-9, SE-1); the button says so before anyone clicks it.
function renderDraw() {
  const { draw, round, draw_refused: refused } = view.state;
  const button = $("#draw-button");
  button.textContent = draw ? `Redraw round ${round}` : `Draw round ${round}`;
  button.disabled = Boolean(refused);
  button.title = refused ?? "";
  const earlier = draw?.superseded.length
    ? ` It replaced the draw${draw.superseded.length > 1 ? "s" : ""} with seed ` +
      `${draw.superseded.join(", ")}, which the log keeps.`
    : "";
  $("#draw-now").replaceChildren(
    draw
      ? el(
          "span",
          { class: "ok" },
          `Round ${round} is drawn: seed `,
          el("span", { class: "seed" }, draw.seed),
          `, ${draw.repeats} unavoidable repeat meetings (rule SE-2).${earlier}`,
          refused ? "" : " It can be redrawn until its first deal or hand: print the slips after.",
        )
      : el("span", { class: "muted" }, `Round ${round} is not drawn yet.`),
  );
  $("#redraw-check").hidden = !draw || Boolean(refused);
  $("#redraw").checked = false;
  const why = $("#draw-refused");
  why.hidden = !refused;
  why.textContent = refused ? `${draw ? "No redraw" : "No draw"} now: ${refused}` : "";
}

function renderSegments() {
  const { segments } = view.state;
  $("#segments tbody").replaceChildren(
    ...segments.map((s) =>
      el(
        "tr",
        {},
        el("td", {}, s.group ?? "–"),
        el("td", {}, s.segment),
        el("td", {}, s.tables.join(", ") || "–"),
        el("td", {}, s.start ? new Date(s.start).toLocaleString() : "–"),
        el("td", { class: `state-${s.state.replace(" ", "-")}` }, s.state),
        el(
          "td",
          {},
          s.state === "not opened" &&
            el(
              "button",
              {
                class: "small",
                dataset: action("open", s),
                // the server refuses a clock for nobody (rule SE-1): say so before the click
                disabled: !s.tables.length,
                title: s.tables.length ? null : "draw the round first",
              },
              "Open now",
            ),
          " ",
          s.state !== "closed" &&
            el("button", { class: "small quiet", dataset: action("close", s) }, "Close"),
        ),
      ),
    ),
  );
  const { groups } = view.state;
  $("#schedule-form [data-groups]").hidden = !groups.length;
  const select = $("#schedule-group");
  if ([...select.options].map((o) => o.value).join() !== groups.join()) {
    select.replaceChildren(...groups.map((group) => el("option", {}, group)));
  }
}

const action = (act, segment) => ({ act, segment: segment.segment, group: segment.group ?? "" });

function renderClocks() {
  const now = view.feed ? view.feed.serverNow() : Date.now();
  const rows = Object.values(view.clocks).sort((a, b) => a.table - b.table);
  $("#clocks").replaceChildren(
    ...(rows.length ? rows : []).map((row) => {
      let shown = "–";
      let phase = row.phase;
      if (phase === "running" && !row.starts_at && !row.play_all && row.hands_completed === 0) {
        // rule CL-3a: a segment neither opened nor scheduled has no limit, and its clock
        // says running; a table of it without a hand has not begun (group B while group A
        // plays its half)
        phase = "not_started";
        shown = "no clock";
      } else if (row.phase === "running") {
        // rules CL-3a, PN-2: no schedule or a play-all ruling: the clock ends nothing
        shown = row.deadline && !row.play_all ? formatClock(secondsLeft(row, now)) : "no limit";
      } else if (row.phase === "overtime" && row.deadline) {
        shown = `+${formatClock(Math.max(0, Math.floor((now - Date.parse(row.deadline)) / 1000)))}`;
      } else if (row.phase === "break" && row.break_ends) {
        shown = formatClock(secondsLeft({ deadline: row.break_ends }, now));
      } else if (row.phase === "not_started" && row.starts_at) {
        shown = `in ${formatClock(secondsLeft({ deadline: row.starts_at }, now))}`;
      }
      return el(
        "div",
        { class: `clock ${phase}`, dataset: { table: row.table } },
        el("div", {}, `Table ${row.table} · seg ${row.segment}`, row.play_all && " · play all"),
        el("b", {}, shown),
        ` ${phase.replace("_", " ")} · ${handsOf(row)}`,
      );
    }),
  );
  if (!rows.length) $("#clocks").append(el("p", { class: "muted" }, "No table is seated yet."));
}

// An Ari Ari game ends by its rules (AA-12): its clock's planned hands is only a cap.
function handsOf(row) {
  const kind = view.summary?.rounds.find((r) => r.round === row.round)?.segment_kind;
  if (kind === "game" && row.phase !== "finished") return `${row.hands_completed} hands`;
  return `${row.hands_completed}/${row.planned_hands}`;
}

function renderRulings() {
  const { in_round: inRound, penalties } = view.state;
  const select = $("#penalty-player");
  const chosen = select.value;
  const sorted = [...inRound].sort((a, b) => nameOf(a).localeCompare(nameOf(b)));
  select.replaceChildren(
    el("option", { value: "" }, inRound.length ? "choose…" : "nobody plays yet"),
    ...sorted.map((player) => el("option", { value: String(player) }, nameOf(player))),
  );
  select.value = chosen;
  $("#penalties").replaceChildren(
    ...penalties.map((p) =>
      el("li", {}, `${p.points > 0 ? "+" : ""}${p.points} · ${nameOf(p.player)} · ${p.reason}`),
    ),
  );
}

function roundTables() {
  return [...new Set(view.state.segments.flatMap((s) => s.tables))].sort((a, b) => a - b);
}

function renderTokenTables() {
  $("#token-base").textContent = view.state.public_url;
  showWarning("#token-warning", view.state.public_url_warning);
  $("#token-tables").replaceChildren(
    ...roundTables().map((table) =>
      el("button", { class: "small quiet", name: "table", value: table }, `Table ${table}`),
    ),
  );
}

function renderRoundChoices() {
  const select = $("#standings-round");
  const rounds = view.summary.rounds.filter((r) => r.begun).map((r) => r.round);
  const shown = view.shownRound ?? currentRound();
  select.replaceChildren(
    ...rounds.map((round) =>
      el("option", { value: round, selected: round === shown }, `Round ${round}`),
    ),
  );
}

// Section 8: the rows around the cut line (rule ST-3) and any tie at it (rule ST-7), or
// every row.
function renderStandings() {
  const round = view.shownRound === null ? liveRound() : view.shownStandings;
  const body = $("#standings tbody");
  if (!round) {
    body.replaceChildren();
    return;
  }
  const rows = round.standings;
  const advance = round.cut?.advance ?? null;
  // A tie of a whole field (everyone on 0 before the first hand) keeps only the rows at
  // the cut; a tie of a few keeps all of them.
  const tiePlayers = round.cut?.tie?.players ?? [];
  const tied = new Set((tiePlayers.length <= NAMES_IN_FULL ? tiePlayers : []).map(String));
  const every = $("#standings-all").checked;
  const keep = (row) =>
    every ||
    (advance === null ? row.position <= 12 : Math.abs(row.position - advance - 0.5) < 6) ||
    tied.has(String(row.player));
  const out = [];
  let last = 0;
  for (const row of rows) {
    if (!keep(row)) continue;
    if (row.position > last + 1) out.push(gapRow(row.position - last - 1));
    out.push(standingRow(row, tied));
    if (row.position === advance && row.position < rows.length) out.push(cutRow(round));
    last = row.position;
  }
  if (last < rows.length) out.push(gapRow(rows.length - last));
  body.replaceChildren(...out);
  const tie = $("#tie");
  tie.hidden = !round.cut?.tie;
  tie.replaceChildren(...(round.cut?.tie ? tieReport(round.cut.tie, round) : []));
}

function liveRound() {
  const live = view.live;
  if (!live) return null;
  const standings = Object.values(live.rows).sort((a, b) => a.position - b.position);
  return { ...live, standings };
}

// A total or a distance as the console shows it: Ari Ari points whole with thousands
// separators (rule AA-17), otherwise the server's 2 decimals (SC-5).
const figure = (exact, shown) =>
  view.state?.ariari && exact !== null && exact !== undefined ? pointsShown(exact) : shown;

function standingRow(row, tied) {
  const side = row.above_cut === null ? "" : row.above_cut ? "above" : "below";
  const distance =
    row.distance_shown === null
      ? ""
      : `${row.above_cut ? "+" : "−"}${figure(row.distance, row.distance_shown)}`;
  return el(
    "tr",
    {
      class: [side, tied.has(String(row.player)) ? "tied" : ""].join(" ").trim() || null,
      dataset: { player: row.player },
    },
    el("td", { class: "num" }, row.position),
    el("td", { class: "num" }, row.rank),
    el("td", {}, nameOf(row.player)),
    el("td", { class: "num" }, row.carry_in),
    el("td", { class: "num" }, row.play),
    el("td", { class: "num strong" }, figure(row.total, row.shown)),
    el("td", { class: "num" }, distance),
    el("td", {}, row.status),
  );
}

function cutRow(round) {
  const line =
    round.cut.line_total === null
      ? ""
      : ` · line total ${figure(round.cut.line_total, round.cut.line_total)}`;
  const text = `cut: ${round.cut.advance} advance${line}`;
  return el("tr", { class: "cut-line" }, el("td", { colspan: 8 }, text));
}

const gapRow = (count) =>
  el("tr", { class: "gap" }, el("td", { colspan: 8 }, `… ${count} more`, plural(" player", count)));

// rule ST-7: how the tie-break on winning hands (ST-4) and the draw (ST-5) decide a tie.
// Compact until the tie is real: before anyone has scored, the whole field is level at the
// line, and a list of every name says nothing. No name is listed twice.
function tieReport(tie, round) {
  const ended = round.ended;
  const scored = round.standings.some((row) => row.play !== "0");
  if (!ended && !scored) {
    return [
      el(
        "p",
        {},
        el("b", {}, "No score yet: "),
        `all ${tie.players.length} players are level at ${tie.total}; ` +
          `${tie.places} of them advance. The tie-break on winning hands (rule ST-4) and ` +
          "any draw (rule ST-5) show here once the hands have separated them.",
      ),
    ];
  }
  const hands = (player) => tie.hands[String(player)] ?? [];
  const withHands = tie.players.filter((player) => hands(player).length);
  const lines = [
    el(
      "p",
      {},
      el("b", {}, `Level at ${tie.total} across the cut: `),
      `${tie.players.length} players, ${tie.places} of them advance.`,
    ),
    namesShown(tie.players, "The players level at the line"),
  ];
  const others = tie.players.length - withHands.length;
  const shownHands = withHands.slice(0, NAMES_IN_FULL);
  lines.push(
    el(
      "p",
      {},
      "Winning hands this round (rule ST-4): ",
      withHands.length
        ? shownHands.map((player) => `${nameOf(player)}: ${hands(player).join(", ")}`).join(" · ") +
            (withHands.length > shownHands.length
              ? ` · ${withHands.length - shownHands.length} more with hands`
              : "") +
            (others ? ` · the other ${others} none` : "")
        : "none among them.",
    ),
  );
  if (tie.advance_by_hands.length) {
    lines.push(el("p", {}, `Through on their hands: ${compactNames(tie.advance_by_hands)}.`));
  }
  if (tie.draw_among.length) {
    const among =
      `A draw (rule ST-5) among ${tie.draw_among.length === tie.players.length
        ? "all of them"
        : compactNames(tie.draw_among)} for ${tie.draw_places} place(s)`;
    if (tie.draw_winners) {
      lines.push(
        el(
          "p",
          { class: "draw" },
          `${among}: seed `,
          el("span", { class: "seed" }, tie.draw_seed),
          ` → ${compactNames(tie.draw_winners)} advance.`,
        ),
      );
    } else {
      lines.push(
        el("p", { class: "draw" }, among, ended ? " was not run." : " decides at the round end."),
      );
    }
  }
  return lines;
}

const NAMES_IN_FULL = 12;

// A few names in the sentence; more as a count (their names are in the list above).
const compactNames = (players) =>
  players.length <= NAMES_IN_FULL ? names(players) : `${players.length} players`;

// Every name once: in the open for a few, folded away for many.
function namesShown(players, label) {
  if (players.length <= NAMES_IN_FULL) return el("p", { class: "tied-names" }, names(players));
  return el(
    "details",
    { class: "tied-names" },
    el("summary", {}, `${label} (${players.length})`),
    el("p", {}, names(players)),
  );
}

// Before a round end: what it fixes and, where tables have not played their segments out,
// each of them, with the confirmation and the reason the server asks for.
function armRoundEnd() {
  const round = currentRound();
  const { unfinished, segments } = view.state;
  const seated = segments.some((s) => s.tables.length);
  const short = unfinished.length > 0 || !seated;
  const fixes =
    `Ending round ${round} fixes its standings, the cut and the carry-over. ` +
    "It cannot be undone.";
  let warning = fixes;
  if (!seated) {
    warning = `Round ${round} has no seated table: nobody has played it. ${fixes}`;
  } else if (short) {
    // A round 1 of 76 tables with three halves still to play has 228 table halves short
    // but only 76 tables: say both, so neither reads as the other.
    const kind = segmentWord();
    const tables = new Set(unfinished.map((t) => t.table)).size;
    warning =
      `${unfinished.length} table ${plural(kind, unfinished.length)} (at ` +
      `${tables} ${plural("table", tables)}) ${unfinished.length === 1 ? "has" : "have"} not ` +
      "played out: ending now ranks their players on what they have played, and a draw at " +
      `the cut (rule ST-5) may decide between players who never played. ${fixes}`;
  }
  $("#end-warning").textContent = warning;
  $("#end-tables").replaceChildren(
    ...unfinishedLines(unfinished, segments).map((line) => el("li", {}, line)),
  );
  $("#end-unfinished").hidden = !short;
  $("#end-anyway").checked = false;
  $("#end-reason").value = "";
  $("#end-confirm").hidden = false;
  (short ? $("#end-anyway") : $("#end-button")).focus();
}

// A segment none of whose tables has played is one line ("Half 3 of group A: not played
// at any of its 38 tables"), not 38; a segment partly played lists its short tables.
function unfinishedLines(unfinished, segments) {
  const key = (group, segment) => `${group ?? ""}/${segment}`;
  const seatedTables = new Map(segments.map((s) => [key(s.group, s.segment), s.tables.length]));
  const bySegment = new Map();
  for (const t of unfinished) {
    const k = key(t.group, t.segment);
    if (!bySegment.has(k)) bySegment.set(k, []);
    bySegment.get(k).push(t);
  }
  return [...bySegment.entries()].flatMap(([k, tables]) => {
    const whole = tables.length > 1 && tables.length === seatedTables.get(k);
    if (!whole || tables.some((t) => t.hands > 0)) return tables.map(describeTable);
    const { group, segment } = tables[0];
    const word = segmentWord();
    const where = `${word[0].toUpperCase()}${word.slice(1)} ${segment}` +
      (group ? ` of group ${group}` : "");
    return [`${where}: not played at any of its ${tables.length} tables`];
  });
}

function describeTable(t) {
  const where = `Table ${t.table}, ${view.summary ? segmentWord() : "segment"} ${t.segment}` +
    (t.group ? ` of group ${t.group}` : "");
  if (t.planned === null) return `${where}: game not ended after ${t.hands} hands`;
  return `${where}: ${t.hands} of ${t.planned} hands${t.hands ? "" : " (not played)"}`;
}

function segmentWord() {
  const shown = view.summary.rounds.find((r) => r.round === currentRound());
  return shown?.segment_kind ?? "segment";
}

// The answer of a round end: the cut, and the draw if the tie needed one.
function showRoundEnd(ended) {
  const panel = $("#round-end");
  const round = ended.standings;
  const cut = round.cut;
  const advanced = round.standings.filter((row) => row.status === "advanced").length;
  const line = cut
    ? `the line total is ${figure(cut.line_total, cut.line_total)}, ` +
      `the next ${figure(cut.next_total, cut.next_total)}`
    : "";
  const parts = [
    el(
      "p",
      {},
      el("b", {}, `Round ${ended.round} ended`),
      ` (version ${ended.version}).`,
      cut && ` ${advanced} advance; ${line}.`,
    ),
  ];
  if (ended.draw_seed) {
    parts.push(
      el(
        "p",
        {},
        "Draw seed ",
        el("span", { class: "seed", id: "end-seed" }, ended.draw_seed),
        ended.seed_generated ? ", drawn by the server and recorded." : ", as given, recorded.",
      ),
    );
  }
  if (cut?.tie) parts.push(...tieReport(cut.tie, round));
  else parts.push(el("p", {}, "No tie at the line: no draw was needed."));
  panel.replaceChildren(...parts);
  panel.hidden = false;
}

// -- judges' tokens ---------------------------------------------------------------------------

async function issueToken(table, how = {}) {
  const issued = await post(api("/tokens"), { table, ...how });
  for (const token of issued.revoked) dropCard(token.id);
  const card = await post(`/admin/${view.tid}/judge-card`, { token: issued.token });
  view.cards.set(table, card);
  showCard(card);
}

const untilText = (iso) =>
  new Date(iso).toLocaleString([], { dateStyle: "short", timeStyle: "short" });

// The live tokens of the tournament, each with its Revoke button (the token itself is never
// shown again: only its id, its table and its end).
async function loadLiveTokens() {
  if (!view.tid) return;
  const tokens = await getJSON(api("/tokens"));
  const perTable = new Map();
  for (const token of tokens) perTable.set(token.table, (perTable.get(token.table) ?? 0) + 1);
  const shownTables = new Set();
  const items = [];
  for (const token of tokens) {
    const buttons = [
      el("button", { class: "small quiet", name: "revoke", value: `token:${token.id}` }, "Revoke"),
    ];
    if (perTable.get(token.table) > 1 && !shownTables.has(token.table)) {
      shownTables.add(token.table);
      buttons.push(
        el("button", { class: "small quiet", name: "revoke", value: `table:${token.table}` },
          `Revoke all ${perTable.get(token.table)} of table ${token.table}`),
      );
    }
    items.push(
      el("li", { dataset: { token: token.id, table: token.table } },
        `Table ${token.table} · token ${token.id} · until ${untilText(token.expires_at)} `,
        ...buttons),
    );
  }
  $("#live-tokens").replaceChildren(
    ...(items.length ? items : [el("li", { class: "muted" }, "None: no tablet is signed in.")]),
  );
}

// A card of a revoked token would sign a tablet in to nothing: it goes.
function dropCard(tokenId) {
  for (const [table, card] of view.cards) {
    if (card.token_id !== tokenId) continue;
    view.cards.delete(table);
    $(`#token-cards .token-card[data-table="${table}"]`)?.remove();
  }
  $("#print-tokens").hidden = view.cards.size === 0;
}

// One card in table order, replacing the table's earlier card: a day of 256 tables adds
// 256 cards without redrawing the others each time.
function showCard(card) {
  const code = el("div", { class: "qr" });
  code.innerHTML = card.svg; // segno's SVG of our own URL: no name or user text in it
  const node = el(
    "figure",
    { class: "token-card", dataset: { table: card.table } },
    el("h3", {}, `Table ${card.table}`),
    code,
    el("figcaption", { class: "url" }, card.url),
    el("p", { class: "muted" }, `token ${card.token_id} · until ${untilText(card.expires_at)}`),
    card.warning ? el("p", { class: "address-warning", role: "alert" }, card.warning) : null,
  );
  const holder = $("#token-cards");
  const shown = [...holder.children];
  const same = shown.find((other) => Number(other.dataset.table) === card.table);
  const next = shown.find((other) => Number(other.dataset.table) > card.table);
  if (same) same.replaceWith(node);
  else holder.insertBefore(node, next ?? null);
  $("#print-tokens").hidden = false;
}

function printTokenCards() {
  const cards = [...view.cards.values()].sort((a, b) => a.table - b.table);
  const title = escapeHtml(view.summary?.name ?? "");
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>${title} · judges' token cards</title>
<style>
  @page { size: A4; margin: 10mm; }
  body { font-family: system-ui, "DejaVu Sans", Arial, sans-serif; margin: 0; }
  main { display: grid; grid-template-columns: repeat(3, 1fr); gap: 6mm; }
  section { border: 1px dashed #777; padding: 4mm; text-align: center; break-inside: avoid; }
  h1 { font-size: 18pt; margin: 0 0 2mm; }
  svg { width: 45mm; height: auto; }
  p { font-size: 7pt; word-break: break-all; margin: 1mm 0 0; }
  p.warning { color: #b00; font-weight: bold; font-size: 8pt; word-break: normal; }
</style></head><body><main>
${cards
  .map(
    (card) => `<section><h1>Table ${Number(card.table)}</h1>${card.svg}
<p>${title} · round ${currentRound()}</p><p>${escapeHtml(card.url)}</p>${
      card.warning ? `<p class="warning">${escapeHtml(card.warning)}</p>` : ""
    }</section>`,
  )
  .join("\n")}
</main></body></html>`;
  window.open(blobUrl("tokens", new Blob([html], { type: "text/html" })), "_blank");
}

// -- the tournament's pages, with QR codes ------------------------------------------------------

function showWarning(selector, warning) {
  const node = $(selector);
  node.hidden = !warning;
  node.textContent = warning ?? "";
}

function renderLinkChoices() {
  const select = $("#links-player");
  const chosen = select.value || view.links?.player || "";
  select.replaceChildren(
    ...view.state.players.map((player) =>
      el("option", { value: player.id, selected: String(player.id) === chosen }, nameOf(player.id)),
    ),
  );
}

async function loadLinks(player = "", table = "") {
  const query = new URLSearchParams();
  if (player) query.set("player", player);
  if (table) query.set("table", table);
  const links = await getJSON(`/admin/${view.tid}/links?${query}`);
  view.links = links;
  $("#links-base").textContent = links.public_url;
  showWarning("#links-warning", links.warning);
  $("#links-table").value = links.table;
  if (links.player !== null) $("#links-player").value = links.player;
  const groups = new Map();
  for (const link of links.links) {
    if (!groups.has(link.group)) groups.set(link.group, []);
    groups.get(link.group).push(link);
  }
  $("#links").replaceChildren(
    ...[...groups].flatMap(([group, shown]) => [
      el("h3", {}, group),
      el("div", { class: "cards" }, ...shown.map(linkCard)),
    ]),
  );
}

function linkCard(link) {
  const code = el("div", { class: "qr" });
  code.innerHTML = link.svg; // segno's SVG of our own URL
  return el(
    "figure",
    { class: "link-card", dataset: { url: link.url } },
    el("figcaption", {}, link.title),
    code,
    el("a", { href: link.url, target: "_blank", rel: "noopener" }, link.url),
  );
}

// -- start -------------------------------------------------------------------------------------

setInterval(() => {
  if (view.feed) renderClocks();
}, 1000);

wireForms();
if (sessionStorage.getItem(TOKEN_KEY)) {
  request("/admin/session")
    .then(showConsole)
    .catch((error) => showGate(error.message));
} else {
  showGate();
}
