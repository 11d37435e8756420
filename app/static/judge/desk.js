// @ts-check
// The head judge's page (head_judge.html; issue 18, part 3). The tables calling come from the
// head judge's API (GET .../calls, with the notes), read again whenever the public `calls`
// channel changes, so a new call shows at once. Each wait ticks on the server's clock
// (rule CL-6), never on this device's. A new call sounds a short tone, made here with the
// Web Audio API (no sound file): a browser plays sound only after a tap, hence the button.

import { LiveFeed, formatClock } from "../live.js";
import { SPOKEN_HEADERS, spoken, t, tn } from "../i18n.js";
import { reasonWords } from "./call.js";

const TOKEN_KEY = "scoreboard-head-judge-token";
const RESOLVED_SHOWN = 20;

/** @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/**
 * @param {string} tag
 * @param {Record<string, string>} [props]
 * @param {(Node | string | null)[]} children
 */
function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child !== null) node.append(child);
  return node;
}

export class Desk {
  constructor() {
    const root = $("desk");
    this.tournament = Number(root.dataset.tournament);
    this.token = null;
    /** @type {any[]} */
    this.calls = [];
    this.offsetMs = 0; // server time minus this device's, from the API's answer
    this.feed = null;
    this.seen = new Set(); // the calls already shown: a new one sounds
    this.loaded = false;
    /** @type {AudioContext | null} */
    this.audio = null;
    this.tonesPlayed = 0; // for the browser tests
    this.notes = new Map(); // a note being typed survives a redraw
    this.loading = null;
    this.again = false;
  }

  start() {
    this.takeTokenFromAddress();
    this.token = localStorage.getItem(TOKEN_KEY);
    $("token-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const value = /** @type {HTMLInputElement} */ ($("token-input")).value.trim();
      if (!value) return;
      localStorage.setItem(TOKEN_KEY, value);
      this.token = value;
      this.load();
    });
    $("desk-sound").addEventListener("click", () => this.enableSound());
    window.addEventListener("hashchange", () => {
      this.takeTokenFromAddress();
      this.token = localStorage.getItem(TOKEN_KEY);
      this.load();
    });
    setInterval(() => this.tick(), 1000);
    if (this.token) this.load();
    else this.showNoToken("");
  }

  // The QR code opens /head-judge/TID#token=...: the browser never sends the fragment.
  takeTokenFromAddress() {
    const fragment = new URLSearchParams(location.hash.replace(/^#/, ""));
    const token = fragment.get("token");
    if (!fragment.has("token")) return;
    if (token) localStorage.setItem(TOKEN_KEY, token.trim());
    fragment.delete("token");
    const rest = fragment.toString();
    history.replaceState(null, "", `${location.pathname}${location.search}${rest ? `#${rest}` : ""}`);
  }

  /** @param {string} message */
  showNoToken(message) {
    $("desk").dataset.state = "no-token";
    $("no-token").hidden = false;
    $("desk-main").hidden = true;
    $("token-error").textContent = message;
  }

  /**
   * @param {string} method
   * @param {string} path
   * @param {any} [body]
   */
  api(method, path, body) {
    return fetch(spoken(path), {
      method,
      cache: "no-store",
      headers: {
        Authorization: `Bearer ${this.token}`,
        ...SPOKEN_HEADERS,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  // One read at a time; a change arriving meanwhile reads once more after it.
  async load() {
    if (this.loading) {
      this.again = true;
      return this.loading;
    }
    this.loading = this.read();
    try {
      await this.loading;
    } finally {
      this.loading = null;
    }
    if (this.again) {
      this.again = false;
      await this.load();
    }
  }

  async read() {
    let response;
    try {
      response = await this.api("GET", `/api/tournaments/${this.tournament}/calls`);
    } catch {
      $("desk-problem").textContent = t("The server cannot be reached; the calls shown may be old.");
      return;
    }
    if (response.status === 401 || response.status === 403) {
      const problem = await response.json().catch(() => ({}));
      if (response.status === 401) localStorage.removeItem(TOKEN_KEY);
      this.showNoToken(problem.detail ?? t("This token does not open the head judge's page."));
      return;
    }
    if (!response.ok) {
      $("desk-problem").textContent = t("The server answered {status}.", { status: response.status });
      return;
    }
    const answer = await response.json();
    $("desk-problem").textContent = "";
    const server = Date.parse(answer.server_time);
    if (Number.isFinite(server) && !this.feed) this.offsetMs = server - Date.now();
    $("desk-name").textContent = answer.tournament_name;
    $("no-token").hidden = true;
    $("desk-main").hidden = false;
    $("desk").dataset.state = "ready";
    this.calls = answer.calls;
    const fresh = this.calls.filter((call) => call.state === "waiting" && !this.seen.has(call.id));
    for (const call of this.calls) this.seen.add(call.id);
    if (this.loaded && fresh.length) this.tone();
    this.loaded = true;
    this.render();
    if (!this.feed) {
      this.feed = new LiveFeed(this.tournament, ["calls"], {
        onState: () => this.load(),
        onStatus: (/** @type {string} */ status) => this.renderStatus(status),
      }).connect();
    }
  }

  /** rule CL-6: the server's time as this page knows it. */
  now() {
    return this.feed ? this.feed.serverNow() : Date.now() + this.offsetMs;
  }

  /** @param {string} status */
  renderStatus(status) {
    const words = { live: t("live"), stale: t("no news for a while"), offline: t("offline"), connecting: t("connecting") };
    const node = $("feed-status");
    node.textContent = words[/** @type {keyof typeof words} */ (status)] ?? status;
    node.className = `status-${status}`;
  }

  /** Seconds the call has waited (until taken), by the server's clock. @param {any} call */
  waited(call) {
    if (call.state !== "waiting") return call.waited;
    if (!call.called_at) return null;
    return Math.max(0, Math.floor((this.now() - Date.parse(call.called_at)) / 1000));
  }

  /** @param {any} call */
  waitText(call) {
    const seconds = this.waited(call);
    if (seconds === null || seconds === undefined) return "";
    return call.state === "waiting"
      ? t("waiting {time}", { time: formatClock(seconds) })
      : t("waited {time}", { time: formatClock(seconds) });
  }

  tick() {
    for (const node of document.querySelectorAll(".desk-call[data-state='waiting']")) {
      const call = this.calls.find((c) => c.id === /** @type {HTMLElement} */ (node).dataset.call);
      const wait = node.querySelector(".desk-wait");
      if (call && wait) wait.textContent = this.waitText(call);
    }
  }

  render() {
    const open = this.calls.filter((call) => call.state !== "resolved");
    const resolved = this.calls.filter((call) => call.state === "resolved").reverse().slice(0, RESOLVED_SHOWN);
    $("desk-open").replaceChildren(...open.map((call) => this.callItem(call)));
    $("desk-none").hidden = open.length > 0;
    $("desk-resolved").replaceChildren(...resolved.map((call) => this.callItem(call)));
  }

  /** @param {any} call */
  callItem(call) {
    const item = el("li", { class: "desk-call", "data-call": call.id, "data-state": call.state });
    const stateWords = { waiting: t("waiting"), taken: t("taken"), resolved: t("resolved") };
    const count = call.rulings?.length ?? 0;
    const rulings = count ? tn("{count} ruling", "{count} rulings", count) : "";
    item.append(
      el("span", { class: "desk-table", text: t("Table {table}", { table: call.table }) }),
      el(
        "span",
        { class: "desk-reason" },
        el("strong", { text: reasonWords(call.reason) }),
        " · ",
        stateWords[/** @type {keyof typeof stateWords} */ (call.state)] ?? call.state,
        rulings ? ` · ${rulings}` : "",
      ),
      el("span", { class: "desk-wait", text: this.waitText(call) }),
    );
    if (call.state === "waiting") {
      const take = el("button", { type: "button", class: "big primary", "data-action": "take", text: t("Take") });
      take.addEventListener("click", () => this.step(call, "taken"));
      item.append(el("div", { class: "desk-resolve" }, take));
    }
    if (call.state !== "resolved") {
      const label = t("Note for table {table}", { table: call.table });
      const note = /** @type {HTMLInputElement} */ (
        el("input", { autocomplete: "off", "aria-label": label, placeholder: t("What was decided") })
      );
      note.value = this.notes.get(call.id) ?? "";
      note.addEventListener("input", () => this.notes.set(call.id, note.value));
      const resolve = el("button", { type: "button", class: "big", "data-action": "resolve", text: t("Resolve") });
      resolve.addEventListener("click", () => this.step(call, "resolved", note.value));
      item.append(el("div", { class: "desk-resolve" }, note, resolve));
      if (call.seated?.length) item.append(this.penaltyForm(call));
    } else {
      // the head judge's own words: never a catalog's
      item.append(el("p", { class: "desk-resolve note", translate: "no", text: call.note ?? "" }));
    }
    return item;
  }

  // A penalty against the call (rules PN-1, CA-5): one of the players at its table, the
  // points taken off, the reason; the answer says whom it moved across the cut line.
  /** @param {any} call */
  penaltyForm(call) {
    const player = /** @type {HTMLSelectElement} */ (
      el("select", { "aria-label": t("Player"), "data-field": "player" })
    );
    for (const seated of call.seated) {
      player.append(el("option", { value: String(seated.player), translate: "no", text: seated.name }));
    }
    const points = /** @type {HTMLInputElement} */ (
      el("input", { type: "number", max: "-1", step: "1", "aria-label": t("Points taken off"), placeholder: "-5", "data-field": "points" })
    );
    const reason = /** @type {HTMLInputElement} */ (
      el("input", { autocomplete: "off", "aria-label": t("Reason for the penalty"), placeholder: t("Reason for the penalty"), "data-field": "reason" })
    );
    const give = el("button", { type: "button", class: "big", "data-action": "penalty", text: t("Give a penalty") });
    give.addEventListener("click", () => {
      const chosen = call.seated.find((/** @type {any} */ s) => String(s.player) === player.value);
      this.penalize(call, chosen, Number(points.value), reason.value);
    });
    return el("div", { class: "desk-resolve desk-penalty" }, player, points, reason, give);
  }

  /**
   * @param {any} call
   * @param {any} seated
   * @param {number} points
   * @param {string} reason
   */
  async penalize(call, seated, points, reason) {
    let response;
    try {
      response = await this.api("POST", `/api/tournaments/${this.tournament}/table-penalties`, {
        round: call.round,
        table: call.table,
        player: seated.player,
        points,
        reason,
        call: call.id,
      });
    } catch {
      $("desk-problem").textContent = t("Not sent: the server cannot be reached. Try again.");
      return;
    }
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) {
      $("desk-problem").textContent = answer.detail ?? t("The server answered {status}.", { status: response.status });
      return;
    }
    const names = new Map(call.seated.map((/** @type {any} */ s) => [String(s.player), s.name]));
    const crossed = (answer.cut_changes ?? []).map((/** @type {any} */ c) => names.get(String(c.player)) ?? String(c.player));
    const comma = t(", "); // not inside the sentence's t() call, where the extraction reads nothing
    $("desk-done").textContent = crossed.length
      ? t("Penalty {points} for {name}, against this call; it moved {players} across the cut line.", {
          points,
          name: seated.name,
          players: crossed.join(comma),
        })
      : t("Penalty {points} for {name}, against this call; no one crossed the cut line.", { points, name: seated.name });
    $("desk-problem").textContent = "";
    await this.load();
  }

  /**
   * @param {any} call
   * @param {"taken" | "resolved"} step
   * @param {string} [note]
   */
  async step(call, step, note) {
    let response;
    try {
      response = await this.api(
        "POST",
        `/api/tournaments/${this.tournament}/calls/${encodeURIComponent(call.id)}/${step}`,
        step === "resolved" ? { note: note ?? "" } : undefined,
      );
    } catch {
      $("desk-problem").textContent = t("Not sent: the server cannot be reached. Try again.");
      return;
    }
    if (!response.ok) {
      const problem = await response.json().catch(() => ({}));
      $("desk-problem").textContent = problem.detail ?? t("The server answered {status}.", { status: response.status });
      return;
    }
    if (step === "resolved") this.notes.delete(call.id);
    await this.load();
  }

  // A browser plays sound only once the page has had a tap: this button is that tap.
  enableSound() {
    const Context = window.AudioContext;
    if (!Context) return;
    this.audio = this.audio ?? new Context();
    this.audio.resume();
    const button = $("desk-sound");
    button.setAttribute("aria-pressed", "true");
    button.textContent = t("Sound on");
    this.tone();
  }

  // Two short beeps, made on the spot: no sound file to download or to serve.
  tone() {
    if (!this.audio) return;
    const start = this.audio.currentTime;
    for (const [offset, pitch] of [
      [0, 880],
      [0.22, 660],
    ]) {
      const oscillator = this.audio.createOscillator();
      const gain = this.audio.createGain();
      oscillator.frequency.value = pitch;
      gain.gain.setValueAtTime(0.0001, start + offset);
      gain.gain.exponentialRampToValueAtTime(0.3, start + offset + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + offset + 0.18);
      oscillator.connect(gain).connect(this.audio.destination);
      oscillator.start(start + offset);
      oscillator.stop(start + offset + 0.2);
    }
    this.tonesPlayed += 1;
  }
}

if (document.getElementById("desk")) {
  const desk = new Desk();
  /** @type {any} */ (window).headJudgeDesk = desk; // for the browser tests
  desk.start();
}
