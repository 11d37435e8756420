// @ts-check
// The organizer's console (issue 6, admin.html).
//
// The admin token is asked for once and kept in sessionStorage (this tab only). Every call
// to the admin API carries it as a bearer header, and so do the console's own routes under
// /admin/{tid}/...: slips, token QR codes and the results CSV are fetched with the header and
// shown as blobs, so the token never sits in a URL. Names are only ever set as text.

import { LiveFeed, formatClock, pointsShown, secondsLeft } from "/static/live.js";
import { prizeAmounts, runLimited } from "/static/admin/pure.js";
import { CheckInDesk } from "/static/admin/checkin.js";
import { SPOKEN_HEADERS, formatTime, language, spoken, t, tn } from "/static/i18n.js";
import { el } from "/static/dom.js";

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

// -- small DOM helpers: text is always set as text (el: static/dom.js) -----------------

function escapeHtml(text) {
  const entities = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
  return String(text).replace(/[&<>"']/g, (c) => entities[c]);
}

function nameOf(player) {
  const registered = view.names.get(String(player));
  return registered ? `${registered.name} (${player})` : String(player);
}

const names = (players) => players.map(nameOf).join(t(", "));

function activity(text, ok = true) {
  const time = formatTime(new Date(), {
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
  });
  $("#activity").prepend(el("li", { class: ok ? null : "failed" }, `${time} · ${text}`));
}

// A translated sentence with elements in it (a seed in its own span): each `{name}` whose
// value is a node becomes that node, so the words around it keep the language's order.
function sentence(message, nodes) {
  return message.split(/(\{[a-z_]+\})/).map((piece) => {
    const name = /^\{([a-z_]+)\}$/.exec(piece)?.[1];
    return name && name in nodes ? nodes[name] : piece;
  });
}

// "what: problem", the colon as the language writes it.
const failed = (what, problem) => t("{what}: {problem}", { what, problem });

// -- the API -----------------------------------------------------------------------------

/**
 * @param {string} path
 * @param {{ method?: string, json?: any, content?: any, type?: string, auth?: boolean }} [options]
 */
async function request(path, { method = "GET", json, content, type, auth = true } = {}) {
  /** @type {Record<string, string>} */
  const headers = { ...SPOKEN_HEADERS };
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
    response = await fetch(spoken(path), { method, headers, body, cache: "no-store" });
  } catch (error) {
    throw new Error(t("the server did not answer ({problem})", { problem: error.message }), {
      cause: error,
    });
  }
  if (!response.ok) {
    const problem = await response.json().catch(() => null);
    if (response.status === 401 && auth) {
      signOut(t("The server refused the admin token. Enter it again."));
    }
    // The server's detail names the field and the rule (app/web/errors.py).
    throw new Error(problem?.detail ?? t("the server answered {status}", { status: response.status }));
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
      activity(failed(form.dataset.label, error.message), false);
      return;
    } finally {
      form.inert = false;
    }
    if (changes) await reload();
  });
}

// A reload that fails says so in the activity list: the change itself went through.
const reload = () =>
  refresh().catch((error) => activity(failed(t("Reloading"), error.message), false));

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
        throw new Error(t("the format is not valid JSON: {problem}", { problem: error.message }), {
          cause: error,
        });
      }
    }
    const chosen = text(data, "language"); // none: the server's default
    const created = await post("/api/tournaments", {
      name: text(data, "name"),
      format,
      ...(chosen ? { language: chosen } : {}),
    });
    activity(t("Created tournament {id}, {name}", { id: created.id, name: text(data, "name") }));
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
      problem.textContent = t(
        "{file} is not UTF-8 text, so its accented and CJK names would be garbled: save it " +
          "again as “CSV UTF-8” (Excel: File › Save as) and choose it again",
        { file: file.name },
      );
      activity(failed(t("Players"), problem.textContent), false);
      event.target.value = "";
    }
  });

  onSubmit("players-form", async (data, _, form) => {
    const body = text(data, "text");
    if (!body) throw new Error(t("paste a CSV or choose a file first"));
    let answer;
    if (body.startsWith("[")) {
      let players;
      try {
        players = JSON.parse(body);
      } catch (error) {
        throw new Error(t("the list is not valid JSON: {problem}", { problem: error.message }), {
          cause: error,
        });
      }
      answer = await post(api("/players"), players);
    } else {
      const csv = { method: "POST", content: body, type: "text/csv" };
      answer = await getJSON(api("/players.csv"), csv);
    }
    activity(tn("Registered {count} player", "Registered {count} players", answer.lines.length));
    form.reset();
  });

  onSubmit("prizes-form", async (data) => {
    const amounts = prizeAmounts(text(data, "amounts"));
    await post(api("/prizes"), { amounts });
    activity(tn("Prizes set for {count} place", "Prizes set for {count} places", amounts.length));
  });

  onSubmit("rate-form", async (data) => {
    await post(api("/carry-over-rate"), { rate: text(data, "rate") });
    activity(t("Round 1 → 2 carry-over rate set to {rate}", { rate: text(data, "rate") }));
  });

  onSubmit("draw-form", async (data) => {
    const seed = text(data, "seed");
    const round = currentRound();
    const redraw = Boolean(view.state.draw);
    if (redraw && !data.get("redraw")) {
      // every seat changes: slips printed from the draw it replaces are wrong
      throw new Error(t("tick “replace the draw” to redraw: every seat changes, print new slips"));
    }
    // A redraw names the draw it replaces: the server refuses it if another console has
    // drawn the round meanwhile, or drawn it again (rule SE-1).
    const body = { ...(seed ? { seed } : {}), ...(redraw ? { replaces: view.state.draw.seed } : {}) };
    const drawn = await post(api(`/rounds/${round}/draw`), body);
    const values = {
      round: drawn.round,
      seed: seed ? drawn.seed : t("{seed} (drawn by the server)", { seed: drawn.seed }),
      seatings: drawn.seatings.length,
      repeats: drawn.repeats,
    };
    activity(
      redraw
        ? t("Round {round} redrawn with seed {seed}: {seatings} seatings, {repeats} unavoidable repeat meetings", values)
        : t("Round {round} drawn with seed {seed}: {seatings} seatings, {repeats} unavoidable repeat meetings", values),
    );
    $("#slips-round").value = drawn.round;
  });

  onSubmit("slips-form", async (data, as) => {
    const round = integer(data, "round");
    // The paper fallback (issue 18): every table's score sheet of the round, one a page.
    const path = as === "sheets" ? `/admin/${view.tid}/sheets/${round}` : `/admin/${view.tid}/slips/${round}`;
    if (as === "csv") {
      const response = await request(`${path}.csv`);
      download(await response.blob(), `slips-${view.tid}-round-${round}.csv`);
      activity(t("Slips of round {round} downloaded as CSV", { round }));
      return;
    }
    // Opened now, inside the click: a window opened after the fetch may be blocked.
    const opened = window.open("", "_blank");
    try {
      // The slips speak the console's language, whatever the browser asks for.
      const response = await request(`${path}?lang=${encodeURIComponent(language)}`);
      const url = blobUrl(as === "sheets" ? "sheets" : "slips", await response.blob());
      if (opened) opened.location.href = url;
      const title = as === "sheets" ? t("Score sheets of round {round}", { round }) : t("Slips of round {round}", { round });
      $("#slips-link").replaceChildren(
        ...sentence(t("{slips} (open again to print)"), {
          slips: el("a", { href: url, target: "_blank" }, title),
        }),
      );
      if (as !== "sheets") activity(t("Slips of round {round} opened for printing", { round }));
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
    const where = group
      ? t("segment {segment} of group {group}, round {round}", { segment, group, round: body.round })
      : t("segment {segment}, round {round}", { segment, round: body.round });
    if (act === "close") {
      // A closed segment is never reopened (rule CL-3): its tables take no new deal or hand.
      const shown = view.state.segments.find(
        (s) => s.segment === Number(segment) && (s.group ?? "") === group,
      );
      const notStarted = shown && shown.state !== "running";
      const question = notStarted
        ? t(
            "Close {where}? Its tables take no new deal or hand from now on, and it cannot be " +
              "reopened. It has not started ({state}): its tables would never play it.",
            { where, state: segmentState(shown.state) },
          )
        : t(
            "Close {where}? Its tables take no new deal or hand from now on, and it cannot be " +
              "reopened.",
            { where },
          );
      if (!window.confirm(question)) return;
    }
    button.disabled = true;
    try {
      await post(api(`/segments/${act}`), body);
      activity(act === "open" ? t("Opened {where}: its clocks run", { where }) : t("Closed {where}", { where }));
      await reload();
    } catch (error) {
      button.disabled = false;
      problem.textContent = error.message;
      activity(failed(where, error.message), false);
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
    activity(
      body.group
        ? t("Segment {segment} of group {group} scheduled to start at {start}", body)
        : t("Segment {segment} scheduled to start at {start}", body),
    );
  });

  onSubmit("penalty-form", async (data) => {
    const player = view.names.get(text(data, "player"))?.id;
    if (player === undefined) throw new Error(t("choose a player"));
    const points = integer(data, "points");
    await post(api("/penalties"), {
      round: currentRound(),
      player,
      points,
      reason: text(data, "reason"),
    });
    activity(
      t("Penalty {points} for {player}: {reason}", {
        points,
        player: nameOf(player),
        reason: text(data, "reason"),
      }),
    );
  });

  onSubmit("extension-form", async (data) => {
    const body = {
      round: currentRound(),
      segment: integer(data, "segment"),
      table: integer(data, "table"),
      minutes: integer(data, "minutes"),
    };
    await post(api("/extensions"), body);
    activity(t("Table {table}, segment {segment}: {minutes} more minutes", body));
  });

  onSubmit("play-all-form", async (data) => {
    const body = {
      round: currentRound(),
      segment: integer(data, "segment"),
      table: integer(data, "table"),
      reason: text(data, "reason"),
    };
    await post(api("/play-all"), body);
    activity(t("Table {table}, segment {segment} plays every hand: {reason}", body));
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
    const what =
      body.type === "deal" ? t("the deal of hand {hand}", { hand: body.hand }) : t("an early start");
    activity(
      t("Head judge: table {table}, segment {segment}, {what} at {time}: {reason}", { ...body, what }),
    );
  });

  onSubmit("language-form", async (data) => {
    const chosen = text(data, "language");
    await post(api("/language"), { language: chosen });
    activity(t("The pages' default language is now {language}", { language: languageName(chosen) }));
  });

  onSubmit("links-form", async (data) => {
    await loadLinks(text(data, "player"), text(data, "table"));
  }, { changes: false });

  onSubmit("tokens-form", async (data, which) => {
    const tables = which === "all" ? roundTables() : [Number(which)];
    const how = { revoke_earlier: data.get("replace") === "on" };
    if (text(data, "expires")) how.expires_at = isoTime(data, "expires");
    if (which === "head-judge") {
      await issueHeadJudgeToken(how); // issue 18, part 3: every table, no admin action
      await loadLiveTokens();
      return;
    }
    await runLimited(tables, TOKEN_REQUESTS_AT_ONCE, (table) => issueToken(table, how));
    activity(
      tn(
        "Judges' tokens issued for table {tables}",
        "Judges' tokens issued for tables {tables}",
        tables.length,
        { tables: tables.join(t(", ")) },
      ),
    );
    await loadLiveTokens();
  }, { changes: false });

  // A Revoke button's value: "token:ID" (one token) or "table:N" (every live token of it).
  onSubmit("revoke-form", async (_, which) => {
    const [kind, value] = which.split(":");
    const path = kind === "table" ? api(`/tables/${value}/tokens`) : api(`/tokens/${value}`);
    const answer = await getJSON(path, { method: "DELETE" });
    for (const token of answer.revoked) dropCard(token.id);
    const ids = answer.revoked.map((token) => token.id);
    activity(
      tn("Revoked {count} table token ({ids})", "Revoked {count} table tokens ({ids})", ids.length, {
        ids: ids.join(t(", ")),
      }),
    );
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
        throw new Error(t("tick the box to end the round with these tables as they are"));
      }
      if (!text(data, "reason")) throw new Error(t("give the reason, for the log"));
      Object.assign(body, { confirm_unfinished: true, reason: text(data, "reason") });
    }
    const ended = await post(api(`/rounds/${round}/end`), body);
    $("#end-confirm").hidden = true;
    $("#end-form").reset();
    showRoundEnd(ended);
    view.shownRound = ended.round;
    view.shownStandings = ended.standings;
    const values = {
      round: ended.round,
      count: ended.unfinished.length,
      reason: ended.reason ?? "",
      seed: ended.draw_seed ?? "",
    };
    if (ended.reason && ended.draw_seed) {
      activity(
        t(
          "Round {round} ended with {count} table(s) unfinished: {reason}; the draw at the cut " +
            "used seed {seed}",
          values,
        ),
      );
    } else if (ended.reason) {
      activity(t("Round {round} ended with {count} table(s) unfinished: {reason}", values));
    } else if (ended.draw_seed) {
      activity(t("Round {round} ended; the draw at the cut used seed {seed}", values));
    } else {
      activity(t("Round {round} ended", values));
    }
  });

  onSubmit("exports-form", async (_, what) => {
    if (what === "log") {
      const response = await request(api("/log"), { auth: false });
      download(await response.blob(), `tournament-${view.tid}.jsonl`);
      activity(t("Log downloaded (JSON Lines)"));
    } else if (what === "ema") {
      // Who the EMA's results would list with "-", before the file (issue 18, part 6).
      showMissingEma(await getJSON(api("/ema/missing")));
      const response = await request(api("/ema.csv"));
      download(await response.blob(), `ema-${view.tid}.csv`);
      activity(t("EMA results downloaded as CSV"));
    } else if (what === "hands") {
      const response = await request(api("/hands.csv"));
      download(await response.blob(), `hands-${view.tid}.csv`);
      activity(t("Every hand downloaded as CSV"));
    } else {
      const response = await request(`/admin/${view.tid}/results.csv`);
      download(await response.blob(), `results-${view.tid}.csv`);
      activity(t("Results downloaded as CSV"));
    }
  }, { changes: false });

  $("#ema-form").addEventListener("focusin", fillEmaPlayers);
  onSubmit("ema-form", async (data, _, form) => {
    const player = text(data, "player");
    const registered = view.state?.players.find((p) => String(p.id) === player);
    const ema_id = text(data, "ema_id");
    await post(api("/ema-ids"), { player: registered ? registered.id : player, ema_id });
    activity(t("EMA number of {player} set to {ema_id}", { player: nameOf(player), ema_id }));
    form.reset();
    if (!$("#ema-missing").hidden) showMissingEma(await getJSON(api("/ema/missing")));
  }, { changes: false });

  $("#sign-out").addEventListener("click", () => signOut(t("Signed out.")));
  window.addEventListener("popstate", () => location.reload());
}

// -- results for ranking bodies (EMA) -----------------------------------------------------------

function fillEmaPlayers() {
  $("#ema-players").replaceChildren(
    ...(view.state?.players ?? []).map((player) =>
      el("option", { value: player.id }, view.names.get(String(player.id))?.name ?? ""),
    ),
  );
}

/** @param {{ player: string | number, name: string, country: string | null }[]} missing */
function showMissingEma(missing) {
  const box = $("#ema-missing");
  box.hidden = false;
  if (!missing.length) {
    box.replaceChildren(el("p", {}, t("Every ranked player has an EMA number.")));
    return;
  }
  box.replaceChildren(
    el(
      "p",
      {},
      tn(
        "{count} player has no EMA number; the EMA's results list them with “-”:",
        "{count} players have no EMA number; the EMA's results list them with “-”:",
        missing.length,
      ),
    ),
    el(
      "ul",
      { class: "ema-missing-list" },
      missing.map((player) =>
        el(
          "li",
          { translate: "no", dataset: { player: String(player.player) } },
          player.country ? `${nameOf(player.player)} · ${player.country}` : nameOf(player.player),
        ),
      ),
    ),
  );
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
    el("option", { value: "" }, listed.length ? t("choose…") : t("no tournament yet")),
    ...listed.map((shown) =>
      el(
        "option",
        { value: shown.id, selected: shown.id === view.tid, translate: "no" },
        `${shown.id} · ${shown.name}`,
      ),
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
      badge.textContent = FEED_STATUS[status]?.() ?? status;
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
  await checkInDesk.load(); // issue 18, part 4: who is missing (admin/checkin.js)
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
    refresh().catch((error) => activity(failed(t("Reloading"), error.message), false));
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

// -- the tournament's words, in the page's language ------------------------------------------

// LiveFeed's statuses (live.js)
const FEED_STATUS = {
  connecting: () => t("feed connecting"),
  live: () => t("feed live"),
  stale: () => t("feed stale"),
  offline: () => t("feed offline"),
};

// ConsoleSegment's states (app/web/admin_pages.py)
const SEGMENT_STATES = {
  "not opened": () => t("not opened"),
  scheduled: () => t("scheduled"),
  running: () => t("running"),
  closed: () => t("closed"),
};
const segmentState = (state) => SEGMENT_STATES[state]?.() ?? state;

// A table clock's phases (app/domain/clocks.py)
const PHASES = {
  not_started: () => t("not started"),
  running: () => t("running"),
  overtime: () => t("overtime"),
  finished_short: () => t("finished short"),
  finished: () => t("finished"),
  break: () => t("break"),
};

// A standing's status (app/domain/standings.py)
const STATUSES = {
  advanced: () => t("advanced"),
  eliminated: () => t("eliminated"),
  playing: () => t("playing"),
  finished: () => t("finished"),
};

// "3 halves", "1 game": a count of a round's segments, of its kind (rule FM-1).
function segmentCount(kind, count) {
  if (kind === "half") return tn("{count} half", "{count} halves", count);
  if (kind === "quarter") return tn("{count} quarter", "{count} quarters", count);
  if (kind === "session") return tn("{count} session", "{count} sessions", count);
  if (kind === "game") return tn("{count} game", "{count} games", count);
  return tn("{count} segment", "{count} segments", count);
}

// "3 table halves": a count of tables' segments that have not played out.
function tableSegments(kind, count) {
  if (kind === "half") return tn("{count} table half", "{count} table halves", count);
  if (kind === "quarter") return tn("{count} table quarter", "{count} table quarters", count);
  if (kind === "session") return tn("{count} table session", "{count} table sessions", count);
  if (kind === "game") return tn("{count} table game", "{count} table games", count);
  return tn("{count} table segment", "{count} table segments", count);
}

// "Half 3", "Game 2": one segment of the current round by its kind.
function segmentName(kind, segment) {
  if (kind === "half") return t("Half {segment}", { segment });
  if (kind === "quarter") return t("Quarter {segment}", { segment });
  if (kind === "session") return t("Session {segment}", { segment });
  if (kind === "game") return t("Game {segment}", { segment });
  return t("Segment {segment}", { segment });
}

// -- rendering -------------------------------------------------------------------------------

function renderTournament() {
  const { summary } = view;
  $("#tournament-title").textContent = summary.name;
  $("#version").textContent = t("version {version}", { version: summary.version });
  $("#language-pick").value = view.state.language;
  $("#summary").hidden = false;
  $("#tournament-steps").hidden = false;
  $("#facts").replaceChildren(
    ...[
      [t("Format"), el("span", { translate: "no" }, summary.format)],
      [t("Players"), tn("{count} registered", "{count} registered", summary.players)],
      [
        t("Round"),
        summary.complete
          ? t("the tournament is complete")
          : t("round {round}", { round: summary.current_round }),
      ],
      [
        t("Language"),
        el("span", { lang: view.state.language, translate: "no" }, languageName(view.state.language)),
      ],
    ].flatMap(([term, value]) => [el("dt", {}, term), el("dd", {}, value)]),
  );
  $("#rounds tbody").replaceChildren(
    ...summary.rounds.map((r) =>
      el(
        "tr",
        { class: r.round === summary.current_round ? "current" : null },
        el("td", {}, r.advance === null ? t("{round} (final)", { round: r.round }) : r.round),
        el(
          "td",
          {},
          // an Ari Ari game ends by its rules, not after a number of hands (rule AA-12)
          r.segment_kind === "game"
            ? segmentCount(r.segment_kind, r.segments)
            : tn("{segments} × {count} hand", "{segments} × {count} hands", r.hands_per_segment, {
                segments: segmentCount(r.segment_kind, r.segments),
              }),
        ),
        el("td", { class: "num" }, r.advance ?? "–"),
        el("td", {}, r.ended ? t("ended") : r.begun ? t("being played") : "–"),
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
  $("#end-arm").textContent = t("End round {round}…", { round: summary.current_round });
  $("#end-button").textContent = t("End round {round}", { round: summary.current_round });
  $("#end-arm").disabled = summary.complete;
  $("#results-page").href = `/admin/${view.tid}/results`;
}

// The language switch's names (language_switch.html): each language named in itself.
function languageName(tag) {
  const option = $(`#language-pick option[value="${tag}"]`);
  return option ? option.textContent : tag;
}

function renderPlayers() {
  const players = view.state.players;
  const grouped = view.state.registration_groups.length > 0; // rule FM-2
  const groups = {};
  for (const player of players) groups[player.group] = (groups[player.group] ?? 0) + 1;
  const byGroup = Object.entries(groups)
    .map(([group, count]) => t("group {group} {count}", { group, count }))
    .join(t(", "));
  const registered = tn("{count} registered", "{count} registered", players.length);
  $("#players-count").textContent = players.length
    ? grouped
      ? t("{registered}: {groups}", { registered, groups: byGroup })
      : registered
    : t("Nobody is registered yet.");
  $("#players-no-group").hidden = grouped;
  $("#players-text").placeholder = grouped
    ? "id,name,group,country,substitute,local_name\n1,Takeshi Yamada,A,JP,,山田 剛\n2,Bram de Vries,B,NL,,"
    : "id,name,country,substitute,local_name\n1,Takeshi Yamada,JP,,山田 剛\n2,Bram de Vries,NL,,";
  $("#players tbody").replaceChildren(
    ...players.map((p) =>
      el(
        "tr",
        {},
        el("td", { translate: "no" }, p.id),
        el("td", { translate: "no" }, p.name),
        el("td", { translate: "no" }, p.local_name ?? ""),
        el("td", { translate: "no" }, grouped ? p.group : "–"),
        el("td", { translate: "no" }, p.country ?? ""),
        el("td", {}, p.substitute ? t("substitute") : ""),
      ),
    ),
  );
}

function renderMoney() {
  const { prizes, round_one_rate: rate, rate_locked: locked } = view.state;
  $("#prizes-now").textContent = prizes.length
    ? t("Now: {prizes}", { prizes: prizes.map((amount, i) => `${i + 1}. ${amount}`).join(" · ") })
    : t("No prize table yet.");
  $("#rate-now").textContent = locked
    ? t("Now {rate}: locked, round 1 has started (rule SC-3).", { rate })
    : t("Now {rate}.", { rate });
}

// The server refuses a draw without a full table of players, and a redraw once the round
// has started (rules FM-9, SE-1); the button says so before anyone clicks it.
function renderDraw() {
  const { draw, round, draw_refused: refused } = view.state;
  const button = $("#draw-button");
  button.textContent = draw ? t("Redraw round {round}", { round }) : t("Draw round {round}", { round });
  button.disabled = Boolean(refused);
  button.title = refused ?? "";
  const earlier = draw?.superseded.length
    ? [
        " ",
        tn(
          "It replaced the draw with seed {seeds}, which the log keeps.",
          "It replaced the draws with seed {seeds}, which the log keeps.",
          draw.superseded.length,
          { seeds: draw.superseded.join(t(", ")) },
        ),
      ]
    : [];
  $("#draw-now").replaceChildren(
    draw
      ? el(
          "span",
          { class: "ok" },
          ...sentence(
            t("Round {round} is drawn: seed {seed}, {repeats} unavoidable repeat meetings (rule SE-2).", {
              round,
              repeats: draw.repeats,
            }),
            { seed: el("span", { class: "seed", translate: "no" }, draw.seed) },
          ),
          ...earlier,
          refused
            ? ""
            : [" ", t("It can be redrawn until its first deal or hand: print the slips after.")],
        )
      : el("span", { class: "muted" }, t("Round {round} is not drawn yet.", { round })),
  );
  $("#redraw-check").hidden = !draw || Boolean(refused);
  $("#redraw").checked = false;
  const why = $("#draw-refused");
  why.hidden = !refused;
  why.textContent = refused
    ? draw
      ? t("No redraw now: {reason}", { reason: refused })
      : t("No draw now: {reason}", { reason: refused })
    : "";
}

function renderSegments() {
  const { segments } = view.state;
  $("#segments tbody").replaceChildren(
    ...segments.map((s) =>
      el(
        "tr",
        {},
        el("td", { translate: "no" }, s.group ?? "–"),
        el("td", {}, s.segment),
        el("td", {}, s.tables.join(t(", ")) || "–"),
        el("td", {}, s.start ? formatTime(new Date(s.start), { dateStyle: "short", timeStyle: "medium" }) : "–"),
        el("td", { class: `state-${s.state.replace(" ", "-")}` }, segmentState(s.state)),
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
                title: s.tables.length ? null : t("draw the round first"),
              },
              t("Open now"),
            ),
          " ",
          s.state !== "closed" &&
            el("button", { class: "small quiet", dataset: action("close", s) }, t("Close")),
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
        shown = t("no clock");
      } else if (row.phase === "running") {
        // rules CL-3a, PN-2: no schedule or a play-all ruling: the clock ends nothing
        shown = row.deadline && !row.play_all ? formatClock(secondsLeft(row, now)) : t("no limit");
      } else if (row.phase === "overtime" && row.deadline) {
        shown = `+${formatClock(Math.max(0, Math.floor((now - Date.parse(row.deadline)) / 1000)))}`;
      } else if (row.phase === "break" && row.break_ends) {
        shown = formatClock(secondsLeft({ deadline: row.break_ends }, now));
      } else if (row.phase === "not_started" && row.starts_at) {
        shown = t("in {time}", { time: formatClock(secondsLeft({ deadline: row.starts_at }, now)) });
      }
      return el(
        "div",
        { class: `clock ${phase}`, dataset: { table: row.table } },
        el(
          "div",
          {},
          row.play_all
            ? t("Table {table} · seg {segment} · play all", row)
            : t("Table {table} · seg {segment}", row),
        ),
        el("b", {}, shown),
        ` ${PHASES[phase]?.() ?? phase.replace("_", " ")} · ${handsOf(row)}`,
      );
    }),
  );
  if (!rows.length) $("#clocks").append(el("p", { class: "muted" }, t("No table is seated yet.")));
}

// An Ari Ari game ends by its rules (AA-12): its clock's planned hands is only a cap.
function handsOf(row) {
  const kind = view.summary?.rounds.find((r) => r.round === row.round)?.segment_kind;
  if (kind === "game" && row.phase !== "finished") {
    return tn("{count} hand", "{count} hands", row.hands_completed);
  }
  return `${row.hands_completed}/${row.planned_hands}`;
}

function renderRulings() {
  const { in_round: inRound, penalties } = view.state;
  const select = $("#penalty-player");
  const chosen = select.value;
  const sorted = [...inRound].sort((a, b) => nameOf(a).localeCompare(nameOf(b)));
  select.replaceChildren(
    el("option", { value: "" }, inRound.length ? t("choose…") : t("nobody plays yet")),
    ...sorted.map((player) => el("option", { value: String(player) }, nameOf(player))),
  );
  select.value = chosen;
  $("#penalties").replaceChildren(
    ...penalties.map((p) =>
      el("li", { translate: "no" }, `${p.points > 0 ? "+" : ""}${p.points} · ${nameOf(p.player)} · ${p.reason}`),
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
      el("button", { class: "small quiet", name: "table", value: table }, t("Table {table}", { table })),
    ),
  );
}

function renderRoundChoices() {
  const select = $("#standings-round");
  const rounds = view.summary.rounds.filter((r) => r.begun).map((r) => r.round);
  const shown = view.shownRound ?? currentRound();
  select.replaceChildren(
    ...rounds.map((round) =>
      el("option", { value: round, selected: round === shown }, t("Round {round}", { round })),
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
    el("td", { translate: "no" }, nameOf(row.player)),
    el("td", { class: "num" }, row.carry_in),
    el("td", { class: "num" }, row.play),
    el("td", { class: "num strong" }, figure(row.total, row.shown)),
    el("td", { class: "num" }, distance),
    el("td", {}, STATUSES[row.status]?.() ?? row.status),
  );
}

function cutRow(round) {
  const text =
    round.cut.line_total === null
      ? t("cut: {count} advance", { count: round.cut.advance })
      : t("cut: {count} advance · line total {total}", {
          count: round.cut.advance,
          total: figure(round.cut.line_total, round.cut.line_total),
        });
  return el("tr", { class: "cut-line" }, el("td", { colspan: 8 }, text));
}

const gapRow = (count) =>
  el(
    "tr",
    { class: "gap" },
    el("td", { colspan: 8 }, tn("… {count} more player", "… {count} more players", count)),
  );

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
        el("b", {}, t("No score yet:")),
        " ",
        t(
          "all {count} players are level at {total}; {places} of them advance. The tie-break " +
            "on winning hands (rule ST-4) and any draw (rule ST-5) show here once the hands " +
            "have separated them.",
          { count: tie.players.length, total: tie.total, places: tie.places },
        ),
      ),
    ];
  }
  const hands = (player) => tie.hands[String(player)] ?? [];
  const withHands = tie.players.filter((player) => hands(player).length);
  const lines = [
    el(
      "p",
      {},
      el("b", {}, t("Level at {total} across the cut:", { total: tie.total })),
      " ",
      t("{count} players, {places} of them advance.", {
        count: tie.players.length,
        places: tie.places,
      }),
    ),
    namesShown(tie.players, t("The players level at the line")),
  ];
  const others = tie.players.length - withHands.length;
  const shownHands = withHands.slice(0, NAMES_IN_FULL);
  // Each message on its own: Babel takes no t() from inside another's arguments.
  const comma = t(", ");
  const handLists = shownHands.map((player) => {
    const message = t("{player}: {hands}", { player: nameOf(player), hands: hands(player).join(comma) });
    return message;
  });
  const more = withHands.length - shownHands.length;
  if (more) handLists.push(t("{count} more with hands", { count: more }));
  if (others) handLists.push(t("the other {count} none", { count: others }));
  const none = t("none among them.");
  lines.push(
    el(
      "p",
      {},
      t("Winning hands this round (rule ST-4): {hands}", {
        hands: withHands.length ? handLists.join(" · ") : none,
      }),
    ),
  );
  if (tie.advance_by_hands.length) {
    lines.push(
      el("p", {}, t("Through on their hands: {players}.", { players: compactNames(tie.advance_by_hands) })),
    );
  }
  if (tie.draw_among.length) {
    const all = t("all of them");
    const among = t("A draw (rule ST-5) among {players} for {places} place(s)", {
      players: tie.draw_among.length === tie.players.length ? all : compactNames(tie.draw_among),
      places: tie.draw_places,
    });
    if (tie.draw_winners) {
      lines.push(
        el(
          "p",
          { class: "draw" },
          ...sentence(
            t("{draw}: seed {seed} → {players} advance.", {
              draw: among,
              players: compactNames(tie.draw_winners),
            }),
            { seed: el("span", { class: "seed", translate: "no" }, tie.draw_seed) },
          ),
        ),
      );
    } else {
      lines.push(
        el(
          "p",
          { class: "draw" },
          ended
            ? t("{draw} was not run.", { draw: among })
            : t("{draw} decides at the round end.", { draw: among }),
        ),
      );
    }
  }
  return lines;
}

const NAMES_IN_FULL = 12;

// A few names in the sentence; more as a count (their names are in the list above).
const compactNames = (players) =>
  players.length <= NAMES_IN_FULL
    ? names(players)
    : tn("{count} player", "{count} players", players.length);

// Every name once: in the open for a few, folded away for many.
function namesShown(players, label) {
  if (players.length <= NAMES_IN_FULL) {
    return el("p", { class: "tied-names", translate: "no" }, names(players));
  }
  return el(
    "details",
    { class: "tied-names" },
    el("summary", {}, t("{label} ({count})", { label, count: players.length })),
    el("p", { translate: "no" }, names(players)),
  );
}

// Before a round end: what it fixes and, where tables have not played their segments out,
// each of them, with the confirmation and the reason the server asks for.
function armRoundEnd() {
  const round = currentRound();
  const { unfinished, segments } = view.state;
  const seated = segments.some((s) => s.tables.length);
  const short = unfinished.length > 0 || !seated;
  const fixes = t(
    "Ending round {round} fixes its standings, the cut and the carry-over. It cannot be undone.",
    { round },
  );
  let warning = fixes;
  if (!seated) {
    warning = t("Round {round} has no seated table: nobody has played it. {fixes}", { round, fixes });
  } else if (short) {
    // A round 1 of 76 tables with three halves still to play has 228 table halves short
    // but only 76 tables: say both, so neither reads as the other.
    const kind = segmentWord();
    const tables = new Set(unfinished.map((short) => short.table)).size;
    const atTables = tn("{count} table", "{count} tables", tables);
    warning = tn(
      "{segments} (at {tables}) has not played out: ending now ranks their players on what " +
        "they have played, and a draw at the cut (rule ST-5) may decide between players who " +
        "never played. {fixes}",
      "{segments} (at {tables}) have not played out: ending now ranks their players on what " +
        "they have played, and a draw at the cut (rule ST-5) may decide between players who " +
        "never played. {fixes}",
      unfinished.length,
      {
        segments: tableSegments(kind, unfinished.length),
        tables: atTables,
        fixes,
      },
    );
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
    const name = segmentName(segmentWord(), segment);
    const where = group ? t("{segment} of group {group}", { segment: name, group }) : name;
    return [t("{where}: not played at any of its {count} tables", { where, count: tables.length })];
  });
}

function describeTable(short) {
  const name = segmentName(view.summary ? segmentWord() : "segment", short.segment).toLowerCase();
  const where = short.group
    ? t("Table {table}, {segment} of group {group}", { table: short.table, segment: name, group: short.group })
    : t("Table {table}, {segment}", { table: short.table, segment: name });
  if (short.planned === null) {
    return tn("{where}: game not ended after {count} hand", "{where}: game not ended after {count} hands", short.hands, { where });
  }
  return short.hands
    ? t("{where}: {hands} of {planned} hands", { where, hands: short.hands, planned: short.planned })
    : t("{where}: {hands} of {planned} hands (not played)", { where, hands: short.hands, planned: short.planned });
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
  const parts = [
    el(
      "p",
      {},
      el("b", {}, t("Round {round} ended", { round: ended.round })),
      " ",
      t("(version {version}).", { version: ended.version }),
      cut && [
        " ",
        t("{count} advance; the line total is {line}, the next {next}.", {
          count: advanced,
          line: figure(cut.line_total, cut.line_total),
          next: figure(cut.next_total, cut.next_total),
        }),
      ],
    ),
  ];
  if (ended.draw_seed) {
    parts.push(
      el(
        "p",
        {},
        ...sentence(
          ended.seed_generated
            ? t("Draw seed {seed}, drawn by the server and recorded.")
            : t("Draw seed {seed}, as given, recorded."),
          { seed: el("span", { class: "seed", id: "end-seed", translate: "no" }, ended.draw_seed) },
        ),
      ),
    );
  }
  if (cut?.tie) parts.push(...tieReport(cut.tie, round));
  else parts.push(el("p", {}, t("No tie at the line: no draw was needed.")));
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

// The head judge's token (issue 18, part 3): its card's code opens /head-judge/{tid}.
async function issueHeadJudgeToken(how) {
  const issued = await post(api("/head-judge-tokens"), how);
  for (const token of issued.revoked) dropCard(token.id);
  const card = await post(`/admin/${view.tid}/judge-card`, { token: issued.token });
  view.cards.set(card.table, card);
  showCard(card);
  activity(t("The head judge's token issued"));
}

const untilText = (iso) =>
  formatTime(new Date(iso), { dateStyle: "short", timeStyle: "short" });

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
      el("button", { class: "small quiet", name: "revoke", value: `token:${token.id}` }, t("Revoke")),
    ];
    if (token.role !== "head_judge" && perTable.get(token.table) > 1 && !shownTables.has(token.table)) {
      shownTables.add(token.table);
      buttons.push(
        el("button", { class: "small quiet", name: "revoke", value: `table:${token.table}` },
          t("Revoke all {count} of table {table}", { count: perTable.get(token.table), table: token.table })),
      );
    }
    items.push(
      el("li", { dataset: { token: token.id, table: token.table } },
        token.role === "head_judge"
          ? t("Head judge · token {id} · until {until}", { id: token.id, until: untilText(token.expires_at) })
          : t("Table {table} · token {id} · until {until}", {
            table: token.table,
            id: token.id,
            until: untilText(token.expires_at),
          }),
        " ",
        ...buttons),
    );
  }
  $("#live-tokens").replaceChildren(
    ...(items.length ? items : [el("li", { class: "muted" }, t("None: no tablet is signed in."))]),
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
    el("h3", {}, card.head_judge ? t("Head judge") : t("Table {table}", { table: card.table })),
    code,
    el("figcaption", { class: "url", translate: "no" }, card.url),
    el(
      "p",
      { class: "muted" },
      t("token {id} · until {until}", { id: card.token_id, until: untilText(card.expires_at) }),
    ),
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

// The token cards' words, outside the page's template string (the catalog reads them here).
const tableWord = (table) => t("Table {table}", { table: Number(table) });
const roundLine = (tournament) => t("{tournament} · round {round}", { tournament, round: currentRound() });

function printTokenCards() {
  const cards = [...view.cards.values()].sort((a, b) => a.table - b.table);
  const tournament = view.summary?.name ?? "";
  const title = escapeHtml(t("{tournament} · judges' token cards", { tournament }));
  const html = `<!doctype html><html lang="${escapeHtml(language)}"><head><meta charset="utf-8">
<title>${title}</title>
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
    (card) => `<section><h1>${escapeHtml(tableWord(card.table))}</h1>${card.svg}
<p>${escapeHtml(roundLine(tournament))}</p><p translate="no">${escapeHtml(card.url)}</p>${
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
      el(
        "option",
        { value: player.id, selected: String(player.id) === chosen, translate: "no" },
        nameOf(player.id),
      ),
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
      el("h3", {}, LINK_GROUPS[group]?.() ?? group),
      el("div", { class: "cards" }, ...shown.map(linkCard)),
    ]),
  );
}

// The pages' groups and titles (app/web/admin_pages.py page_links): the server sends each
// title as its message and values, said here in the page's language. A feed's title is its
// file name.
const LINK_GROUPS = {
  Hall: () => t("Hall"),
  Spectators: () => t("Spectators"),
  Overlays: () => t("Overlays"),
  Feeds: () => t("Feeds"),
};
const LINK_TITLES = {
  "Hall display": () => t("Hall display"),
  "Hall display, the page with the cut": () => t("Hall display, the page with the cut"),
  "Printable results": () => t("Printable results"),
  "Spectators' home (phones)": () => t("Spectators' home (phones)"),
  Leaders: () => t("Leaders"),
  "Around the cut": () => t("Around the cut"),
  "On the bubble": () => t("On the bubble"),
  "The story of the session": () => t("The story of the session"),
  "Session clock": () => t("Session clock"),
  "Clock of group {group} (round 1)": (values) => t("Clock of group {group} (round 1)", values),
  "Table {table}": (values) => t("Table {table}", values),
  "Table {table} clock": (values) => t("Table {table} clock", values),
  "Player card: {name}": (values) => t("Player card: {name}", values),
  "Player page: {name}": (values) => t("Player page: {name}", values),
};

function linkTitle(link) {
  const say = LINK_TITLES[link.message];
  return say ? say(link.values) : el("span", { translate: "no" }, link.title);
}

function linkCard(link) {
  const code = el("div", { class: "qr" });
  code.innerHTML = link.svg; // segno's SVG of our own URL
  return el(
    "figure",
    { class: "link-card", dataset: { url: link.url } },
    el("figcaption", {}, linkTitle(link)),
    code,
    el("a", { href: link.url, target: "_blank", rel: "noopener", translate: "no" }, link.url),
  );
}

// -- start -------------------------------------------------------------------------------------

setInterval(() => {
  if (view.feed) renderClocks();
}, 1000);

// issue 18, part 4: the check-in desk, with the console's own API helpers
const checkInDesk = new CheckInDesk({ getJSON, post, api, activity, changed: refreshSoon });
wireForms();
if (sessionStorage.getItem(TOKEN_KEY)) {
  request("/admin/session")
    .then(showConsole)
    .catch((error) => showGate(error.message));
} else {
  showGate();
}
