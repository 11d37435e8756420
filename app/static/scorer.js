// @ts-check
// The scorer's screen (issue 18, part 5; templates/scorer.html): a paper score sheet's hands
// typed in, keyboard only. A row a hand: the winner's column (1-4) or D for a draw, the
// discarder's column or S for a self-draw, the value. Each field is checked as it is typed,
// each row shows its four point changes (rule HS-2), and a review shows that every row sums
// to zero before anything is sent. Rows go to POST /api/tournaments/{tid}/sheet-hands, whose
// Idempotency-Key is the row's place (app/services/sheets.py): a sheet typed twice, or a hand
// its tablet sent, is stored once, and the scorer is told "already stored".
//
// The scorer signs in with the admin token, kept in sessionStorage under the console's key
// (this tab only; static/admin.js): a table token opens one table, a pile of sheets holds many.

import { SPOKEN_HEADERS, formatNumber, formatTime, namesFor, spoken, t, tn } from "/static/i18n.js";
import { el } from "/static/dom.js";
import { COLUMNS, DRAW, FIELDS, SELF_DRAW, readRow, sameResult, sheetCode } from "/static/judge/sheet.js";
import { SEAT_WORDS, handDeltas, signed } from "/static/judge/state.js";

const TOKEN_KEY = "wsom.adminToken";
const RETRIES = 5; // tries of one row while the server asks to wait
const MAX_WAIT_S = 30; // the longest a Retry-After holds a row back

/** @type {(selector: string, root?: ParentNode) => any} */
const $ = (selector, root = document) => root.querySelector(selector);

const view = {
  tid: Number($("#scorer").dataset.tournament),
  /** @type {any} GET /api/tournaments/{tid}/sheets/{round}/{segment}/{table} */
  sheet: null,
  /** @type {{ winner: string, from: string, value: string, dealt: string, left: boolean, sent: string | null }[]} */
  rows: [],
  sending: false,
};

// -- small DOM helpers: text is always set as text (el: static/dom.js) -----------------

function show(which) {
  for (const id of ["gate", "pick", "sheet", "review"]) $(`#${id}`).hidden = !which.includes(id);
}

// -- the server -------------------------------------------------------------------------

/**
 * @param {string} path
 * @param {{ method?: string, json?: any }} [options]
 * @returns {Promise<{ status: number, answer: any, retryAfter: string | null }>}
 */
async function request(path, { method = "GET", json } = {}) {
  /** @type {Record<string, string>} */
  const headers = { ...SPOKEN_HEADERS, Authorization: `Bearer ${sessionStorage.getItem(TOKEN_KEY)}` };
  if (json !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(spoken(path), {
      method,
      headers,
      body: json === undefined ? undefined : JSON.stringify(json),
      cache: "no-store",
    });
  } catch (error) {
    throw new Error(t("the server did not answer ({problem})", { problem: error.message }), { cause: error });
  }
  const answer = await response.json().catch(() => null);
  if (response.status === 401) {
    sessionStorage.removeItem(TOKEN_KEY);
    showGate(t("The server refused the admin token. Enter it again."));
    throw new Error(answer?.detail ?? "401");
  }
  const retryAfter = response.headers.get("Retry-After");
  if (response.status === 429 || response.status === 503) return { status: response.status, answer, retryAfter };
  if (!response.ok && response.status !== 409 && response.status !== 422) {
    // The server's detail names the field and the rule (app/web/errors.py).
    throw new Error(answer?.detail ?? t("the server answered {status}", { status: response.status }));
  }
  return { status: response.status, answer, retryAfter };
}

// The fields of a row: the deal's time only where the clock can end the segment (rule CL-3).
function fields() {
  return view.sheet?.timed ? FIELDS : FIELDS.slice(0, 3);
}

// A name in its owner's script first for a reader of Japanese, Chinese or Korean (issue 17).
function shownName(seated) {
  return namesFor(seated.name, seated.local_name)[0];
}

function columnOf(player) {
  const index = view.sheet.players.findIndex((seated) => String(seated.player) === String(player));
  return index + 1;
}

function resultText(result) {
  if (result.kind === "draw") return t("draw");
  if (result.kind === "self_draw") {
    return t("{winner} self-draw, {value}", { winner: columnOf(result.winner), value: result.value });
  }
  if (result.kind === "discard") {
    return t("{winner} from {discarder}, {value}", {
      winner: columnOf(result.winner),
      discarder: columnOf(result.discarder),
      value: result.value,
    });
  }
  return t("points");
}

function deltasOf(result) {
  const players = view.sheet.players.map((seated) => seated.player);
  return result ? handDeltas(result, players) : null;
}

// -- the sheet -------------------------------------------------------------------------

function segmentTitle(sheet) {
  const values = { round: sheet.round, segment: sheet.segment, table: sheet.table };
  switch (sheet.segment_kind) {
    case "quarter":
      return t("Round {round} · quarter {segment} · table {table}", values);
    case "session":
      return t("Round {round} · session {segment} · table {table}", values);
    case "game":
      return t("Round {round} · game {segment} · table {table}", values);
    default:
      return t("Round {round} · half {segment} · table {table}", values);
  }
}

async function openSheet(code) {
  const { status, answer } = await request(
    `/api/tournaments/${view.tid}/sheets/${code.round}/${code.segment}/${code.table}`,
  );
  if (status >= 400) throw new Error(answer?.detail ?? String(status));
  view.sheet = answer;
  view.rows = answer.hands.map(() => ({ winner: "", from: "", value: "", dealt: "", left: false, sent: null }));
  const url = new URL(location.href);
  url.searchParams.set("sheet", `${code.round}-${code.segment}-${code.table}`);
  history.replaceState(null, "", url);
  drawSheet();
  show(["sheet"]);
  if (answer.ruleset === "wsom") focusField(0, "winner");
}

// What the server holds now, under the rows as typed.
async function refresh() {
  const sheet = view.sheet;
  const { status, answer } = await request(`/api/tournaments/${view.tid}/sheets/${sheet.round}/${sheet.segment}/${sheet.table}`);
  if (status >= 400) return;
  sheet.hands.forEach((hand, index) => (hand.stored = answer.hands[index]?.stored ?? null));
  view.rows.forEach((_, index) => drawRow(index));
}

function drawSheet() {
  const sheet = view.sheet;
  $("#tournament-name").textContent = sheet.tournament_name;
  $("#sheet-title").textContent = `${segmentTitle(sheet)} (${sheet.code})`;
  $("#seats tbody").replaceChildren(
    ...sheet.players.map((seated) =>
      el(
        "tr",
        {},
        el("td", {}, String(seated.column)),
        el("td", {}, SEAT_WORDS[seated.seat] ?? seated.seat),
        el("td", { translate: "no" }, shownName(seated), namesFor(seated.name, seated.local_name)[1] ? el("small", {}, ` ${namesFor(seated.name, seated.local_name)[1]}`) : null),
      ),
    ),
  );
  for (const seated of sheet.players) {
    $(`#rows th[data-column="${seated.column}"]`).textContent = `${seated.column} ${shownName(seated)}`;
  }
  const ariari = sheet.ruleset !== "wsom";
  $("#ariari-note").hidden = !ariari;
  $("#rows").hidden = ariari;
  $("#review-button").hidden = ariari;
  $("#keys-help").hidden = ariari;
  $("#dealt-head").hidden = !sheet.timed;
  $("#dealt-help").hidden = !sheet.timed;
  $("#dealt-help").textContent = sheet.timed
    ? t("A timed segment: type when each hand's tiles were all dealt, from the sheet's Dealt column (rule CL-3); the deadline is {deadline}.", {
        deadline: formatTime(new Date(sheet.deadline)),
      })
    : "";
  // said here, not inside the label's t() call, where the catalogs' extraction reads nothing
  const fieldWords = { winner: t("Winner"), from: t("From"), value: t("Value"), dealt: t("Dealt at") };
  $("#rows tbody").replaceChildren(
    ...sheet.hands.map((hand, index) =>
      el(
        "tr",
        { dataset: { hand: hand.hand } },
        el("td", { class: "num" }, String(hand.hand)),
        el(
          "td",
          { translate: "no" },
          hand.dealer === null ? "–" : `${columnOf(hand.dealer)} ${shownName(view.sheet.players[columnOf(hand.dealer) - 1])}`,
        ),
        ...fields().map((field) =>
          el(
            "td",
            {},
            field === "dealt" && (hand.dealt || hand.stored)
              ? el("span", { class: "muted" }, hand.dealt ? formatTime(new Date(hand.dealt)) : "")
              : el("input", {
                  name: field,
                  class: field === "value" || field === "dealt" ? "value" : "key",
                  autocomplete: "off",
                  spellcheck: "false",
                  inputmode: field === "winner" || field === "from" ? "text" : "numeric",
                  maxlength: field === "value" ? 4 : field === "dealt" ? 5 : 1,
                  "aria-label": t("hand {hand}: {field}", {
                    hand: hand.hand,
                    field: fieldWords[field],
                  }),
                  dataset: { row: index, field },
                }),
          ),
        ),
        ...COLUMNS.map((column) => el("td", { class: "num", dataset: { delta: column } })),
        el("td", { class: "check" }),
      ),
    ),
  );
  view.rows.forEach((_, index) => drawRow(index));
}

function drawRow(index) {
  const row = view.rows[index];
  const line = $(`#rows tbody tr:nth-child(${index + 1})`);
  const read = readRow(row, view.sheet, index);
  const stored = view.sheet.hands[index].stored;
  for (const field of fields()) {
    const input = $(`input[name="${field}"]`, line);
    if (!input) continue;
    input.value = row[field];
    // A problem shows as soon as the field holds something wrong; a missing field once the
    // scorer has left the row (or asks for the review).
    const typed = row[field].trim() !== "";
    const problem = read.problems[field] && (typed || row.left) ? read.problems[field] : null;
    input.setAttribute("aria-invalid", problem ? "true" : "false");
    input.title = problem ?? "";
  }
  const deltas = deltasOf(read.result);
  for (const column of COLUMNS) {
    const cell = $(`td[data-delta="${column}"]`, line);
    const delta = deltas ? deltas[String(view.sheet.players[Number(column) - 1].player)] : null;
    cell.textContent = delta === null || delta === undefined ? "" : signed(delta);
  }
  const shown = fields().map((field) => read.problems[field] && (row[field].trim() !== "" || row.left) ? read.problems[field] : null).find(Boolean);
  const check = $("td.check", line);
  check.className = "check";
  if (row.sent) {
    check.textContent = row.sent;
    check.classList.add("sent");
  } else if (shown) {
    check.textContent = shown;
    check.classList.add("problem");
  } else if (stored && !read.empty) {
    const same = sameResult(stored, read.result);
    check.textContent = same
      ? t("on the server already: the same")
      : t("on the server: {result}; this differs", { result: resultText(stored) });
    check.classList.add(same ? "sent" : "problem");
  } else if (stored) {
    check.textContent = t("on the server: {result}", { result: resultText(stored) });
  } else if (deltas) {
    check.textContent = t("sums to {sum}", { sum: formatNumber(Object.values(deltas).reduce((a, b) => a + b, 0)) });
  } else {
    check.textContent = "";
  }
}

function focusField(index, field) {
  const input = $(`#rows tbody tr:nth-child(${index + 1}) input[name="${field}"]`);
  if (input) {
    input.focus();
    input.select();
  }
}

function leaveRow(index) {
  if (index >= 0 && index < view.rows.length) {
    view.rows[index].left = true;
    drawRow(index);
  }
}

// -- keys ------------------------------------------------------------------------------

function onInput(event) {
  const input = event.target;
  if (!(input instanceof HTMLInputElement) || input.dataset.row === undefined) return;
  const index = Number(input.dataset.row);
  const field = input.dataset.field;
  const row = view.rows[index];
  const text = field === "value" ? input.value.trim() : input.value.trim().toUpperCase();
  row[field] = text;
  row.sent = null;
  drawRow(index);
  // A complete key moves on by itself: a draw to the next row, a winner to the discarder, a
  // discarder or self-draw to the value.
  if (field === "winner" && text === DRAW) {
    if (hasField(index, "dealt")) focusField(index, "dealt");
    else nextRow(index);
  }
  else if (field === "winner" && COLUMNS.includes(text)) focusField(index, "from");
  else if (field === "from" && (COLUMNS.includes(text) || text === SELF_DRAW)) focusField(index, "value");
}

function hasField(index, field) {
  return Boolean($(`#rows tbody tr:nth-child(${index + 1}) input[name="${field}"]`));
}

function nextRow(index) {
  leaveRow(index);
  if (index + 1 < view.rows.length) focusField(index + 1, "winner");
  else $("#review-button").focus();
}

function onKey(event) {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    review();
    return;
  }
  const input = event.target;
  if (!(input instanceof HTMLInputElement) || input.dataset.row === undefined) return;
  const index = Number(input.dataset.row);
  const field = input.dataset.field;
  if (event.key === "Enter") {
    event.preventDefault();
    const row = view.rows[index];
    const rest = fields().slice(fields().indexOf(field) + 1).filter((next) => hasField(index, next));
    const next = row.winner === DRAW ? rest.find((name) => name === "dealt") : rest[0];
    if (next) focusField(index, next);
    else nextRow(index);
  } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
    event.preventDefault();
    const to = index + (event.key === "ArrowDown" ? 1 : -1);
    if (to >= 0 && to < view.rows.length) {
      leaveRow(index);
      focusField(to, field);
    }
  } else if (event.key === "Backspace" && input.value === "" && field !== "winner") {
    event.preventDefault();
    focusField(index, fields()[fields().indexOf(field) - 1]);
  }
}

function onFocusOut(event) {
  const input = event.target;
  const to = event.relatedTarget;
  if (!(input instanceof HTMLInputElement) || input.dataset.row === undefined) return;
  if (to instanceof HTMLInputElement && to.dataset.row === input.dataset.row) return;
  leaveRow(Number(input.dataset.row));
}

// -- the review: every row sums to zero, nothing sent yet -------------------------------

function filledRows() {
  return view.rows.map((row, index) => ({ row, index, read: readRow(row, view.sheet, index) }));
}

function review() {
  if (!view.sheet || view.sheet.ruleset !== "wsom") return;
  const rows = filledRows();
  const last = rows.reduce((found, { read, index }) => (read.empty ? found : index), -1);
  for (const { row, index, read } of rows) {
    if (index > last) break;
    row.left = true;
    drawRow(index);
    if (read.empty) {
      // rule FM-7: hands are played, and entered, in order
      $("#send-problem").textContent = "";
      alertRow(index, t("hand {hand} is blank but a later hand is filled: the hands go in order (rule FM-7)", { hand: index + 1 }));
      return;
    }
    const problem = Object.values(read.problems)[0];
    if (problem) {
      alertRow(index, t("hand {hand}: {problem}", { hand: index + 1, problem }));
      return;
    }
  }
  if (last < 0) {
    alertRow(0, t("no hand typed yet"));
    return;
  }
  const players = view.sheet.players;
  const totals = [0, 0, 0, 0];
  const lines = rows.slice(0, last + 1).map(({ read, index }) => {
    const deltas = deltasOf(read.result) ?? {};
    const changes = players.map((seated) => deltas[String(seated.player)] ?? 0);
    changes.forEach((delta, column) => (totals[column] += delta));
    const sum = changes.reduce((a, b) => a + b, 0);
    const stored = view.sheet.hands[index].stored;
    const onServer = !stored
      ? ""
      : sameResult(stored, read.result)
        ? t("already stored: the same")
        : t("stored as {result}: this row will be refused", { result: resultText(stored) });
    return el(
      "tr",
      { dataset: { hand: index + 1 }, class: sum === 0 ? "" : "problem" },
      el("td", { class: "num" }, String(index + 1)),
      el("td", {}, resultText(read.result)),
      ...changes.map((delta) => el("td", { class: "num" }, signed(delta))),
      el("td", { class: "num", dataset: { sum: sum } }, formatNumber(sum)),
      el("td", { class: "status" }, onServer),
    );
  });
  const balanced = totals.reduce((a, b) => a + b, 0) === 0;
  $("#review-rows tbody").replaceChildren(...lines);
  $("#review-rows tfoot").replaceChildren(
    el(
      "tr",
      {},
      el("td", { colspan: 2 }, t("Totals")),
      ...totals.map((total) => el("td", { class: "num" }, signed(total))),
      el("td", { class: "num" }, formatNumber(totals.reduce((a, b) => a + b, 0))),
      el("td"),
    ),
  );
  $("#review-sum").textContent = balanced
    ? tn("{count} hand; every row sums to zero (rule HS-2).", "{count} hands; every row sums to zero (rule HS-2).", lines.length)
    : t("A row does not sum to zero: check it against the sheet (rule HS-2).");
  $("#send-problem").textContent = "";
  $("#send-button").disabled = !balanced;
  $("#send-button").textContent = tn("Send {count} hand", "Send {count} hands", lines.length);
  show(["sheet", "review"]);
  $("#send-button").focus();
}

function alertRow(index, message) {
  $("#send-problem").textContent = message;
  show(["sheet"]);
  const line = $(`#rows tbody tr:nth-child(${index + 1})`);
  const invalid = line && $('input[aria-invalid="true"]', line);
  if (invalid) invalid.focus();
  else focusField(index, "winner");
  const check = line && $("td.check", line);
  if (check) {
    check.textContent = message;
    check.className = "check problem";
  }
}

// -- sending: in order, through the tablets' idempotent path -----------------------------

// One row, sent again (the same row, so the same key: never twice) while the server asks to
// wait: over a rate limit (429), busy for a moment (503), or still entering the first try
// (409 on the Idempotency-Key). Anything else is its answer.
async function sendRow(body, status) {
  for (let attempt = 1; ; attempt++) {
    const answer = await request(`/api/tournaments/${view.tid}/sheet-hands`, { method: "POST", json: body });
    const busy = answer.status === 429 || answer.status === 503 || (answer.status === 409 && answer.answer?.field === "Idempotency-Key");
    if (!busy || attempt >= RETRIES) return answer;
    const seconds = Math.min(MAX_WAIT_S, Math.max(1, Number(answer.retryAfter) || 1));
    status.textContent = t("the server asks to wait {seconds} s", { seconds });
    await new Promise((done) => setTimeout(done, seconds * 1000));
  }
}

async function send() {
  if (view.sending) return;
  view.sending = true;
  $("#send-button").disabled = true;
  const sheet = view.sheet;
  const rows = filledRows();
  const last = rows.reduce((found, { read, index }) => (read.empty ? found : index), -1);
  let stored = 0;
  let already = 0;
  try {
    for (const { row, index, read } of rows.slice(0, last + 1)) {
      const status = $(`#review-rows tbody tr[data-hand="${index + 1}"] td.status`);
      /** @type {Record<string, any>} */
      const body = { round: sheet.round, segment: sheet.segment, table: sheet.table, hand: index + 1, result: read.result };
      if (read.dealt) body.dealt = read.dealt; // rule CL-3: recorded as the head judge's deal
      const { status: code, answer } = await sendRow(body, status);
      if (code >= 400) {
        const refusal = answer?.detail ?? String(code);
        status.textContent = t("refused: {reason}", { reason: refusal });
        status.className = "status problem";
        row.sent = t("refused");
        drawRow(index);
        $("#send-problem").textContent = t("hand {hand} was refused; the hands after it were not sent", { hand: index + 1 });
        return;
      }
      if (answer.already === "stored") already += 1;
      else stored += 1;
      row.sent = answer.already === "stored" ? t("already stored") : t("stored");
      status.textContent = row.sent;
      status.className = "status sent";
      drawRow(index);
    }
    $("#send-problem").textContent = t("{stored} stored, {already} already stored: nothing twice.", { stored, already });
    await refresh();
  } catch (error) {
    $("#send-problem").textContent = error.message;
  } finally {
    view.sending = false;
    $("#send-button").disabled = false;
  }
}

// -- the gate and the sheet's choice --------------------------------------------------------

function showGate(message = "") {
  show(["gate"]);
  $("#gate output").textContent = message;
  $("#token-input").focus();
}

function showPick(message = "") {
  show(["pick"]);
  $("#pick output").textContent = message;
  $("#sheet-input").focus();
}

async function start() {
  const code = sheetCode(new URL(location.href).searchParams.get("sheet") ?? "");
  if (code) {
    try {
      await openSheet(code);
      return;
    } catch (error) {
      if (!sessionStorage.getItem(TOKEN_KEY)) return;
      showPick(error.message);
      return;
    }
  }
  showPick();
}

$("#gate").addEventListener("submit", async (event) => {
  event.preventDefault();
  const token = $("#token-input").value.trim();
  if (!token) return;
  sessionStorage.setItem(TOKEN_KEY, token);
  $("#token-input").value = "";
  await start();
});

$("#pick").addEventListener("submit", async (event) => {
  event.preventDefault();
  const code = sheetCode($("#sheet-input").value);
  if (!code) {
    $("#pick output").textContent = t("a sheet's code is round-segment-table, such as 2-1-14");
    return;
  }
  try {
    await openSheet(code);
  } catch (error) {
    if (sessionStorage.getItem(TOKEN_KEY)) showPick(error.message);
  }
});

$("#rows").addEventListener("input", onInput);
$("#rows").addEventListener("focusout", onFocusOut);
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && !$("#review").hidden) {
    event.preventDefault();
    show(["sheet"]);
    focusField(0, "winner");
    return;
  }
  onKey(event);
});
$("#review-button").addEventListener("click", review);
$("#send-button").addEventListener("click", send);
$("#back-button").addEventListener("click", () => {
  show(["sheet"]);
  focusField(0, "winner");
});
$("#other-sheet").addEventListener("click", () => showPick());

if (sessionStorage.getItem(TOKEN_KEY)) start();
else showGate();
