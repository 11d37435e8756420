// @ts-check
// "Call a judge" on the tablet (issue 18, part 3): a reason from a short list (rule CA-1),
// sent once under its own Idempotency-Key (the call's id, rule CA-2), and the table's call
// as the `calls` channel shows it: waiting (for how long, by the server's clock, CL-6) or
// taken.
//
// Not through the outbox: the outbox stops behind a refused entry, and a refused entry is
// just when a table calls the head judge. The call is kept on the tablet (localStorage)
// and sent again every few seconds with the same key until the server has it; meanwhile
// the tablet says plainly that it is not sent, so the table can raise a hand instead.

import { formatClock } from "../live.js";
import { t } from "../i18n.js";
import { newKey } from "./outbox.js";

export const CALL_REASONS = ["dispute", "chombo", "late_player", "broken_tablet"];
const RETRY_MS = 4000;

/** The reason in the page's language. @param {string} reason */
export function reasonWords(reason) {
  const words = {
    dispute: t("A dispute"),
    chombo: t("A chombo ruling"),
    late_player: t("A late player"),
    broken_tablet: t("A broken tablet"),
  };
  return words[/** @type {keyof typeof words} */ (reason)] ?? reason;
}

/**
 * @typedef {object} CallHooks what the call button needs from the tablet
 * @property {(path: string, body: any, headers: Record<string, string>) => Promise<Response>} post
 * @property {() => { tournament: number, table: number, round: number } | null} who
 * @property {() => number} now the server's time, as this tablet knows it (ms)
 */

export class CallButton {
  /** @param {CallHooks} hooks */
  constructor(hooks) {
    this.hooks = hooks;
    /** @type {any[]} the open calls of the tournament, from the `calls` channel */
    this.calls = [];
    /** @type {{ key: string, reason: string, tournament: number, table: number, round: number, problem?: string } | null} */
    this.pending = null;
    this.timer = null;
    this.storageKey = "scoreboard-judge-call";
  }

  start() {
    const button = document.getElementById("call-judge");
    const dialog = document.getElementById("call-dialog");
    if (!button || !dialog) return;
    button.hidden = false;
    button.addEventListener("click", () => {
      dialog.hidden = false;
      /** @type {HTMLElement | null} */ (dialog.querySelector("button[data-reason]"))?.focus();
    });
    document.getElementById("call-cancel")?.addEventListener("click", () => {
      dialog.hidden = true;
    });
    for (const choice of dialog.querySelectorAll("button[data-reason]")) {
      choice.addEventListener("click", () => {
        dialog.hidden = true;
        this.call(/** @type {HTMLElement} */ (choice).dataset.reason ?? "dispute");
      });
    }
    try {
      this.pending = JSON.parse(localStorage.getItem(this.storageKey) ?? "null");
    } catch {
      this.pending = null;
    }
    if (this.pending) this.send();
    setInterval(() => this.render(), 1000); // the wait ticks (rule CL-6)
    this.render();
  }

  /** @param {string} reason */
  call(reason) {
    const who = this.hooks.who();
    if (!who) return;
    this.pending = { key: newKey(), reason, tournament: who.tournament, table: who.table, round: who.round };
    localStorage.setItem(this.storageKey, JSON.stringify(this.pending));
    this.send();
  }

  async send() {
    const pending = this.pending;
    if (!pending) return;
    clearTimeout(this.timer ?? undefined);
    let retry = true;
    try {
      const response = await this.hooks.post(
        `/api/tournaments/${pending.tournament}/calls`,
        { round: pending.round, table: pending.table, reason: pending.reason },
        { "Idempotency-Key": pending.key },
      );
      if (response.ok) {
        const answer = await response.json();
        this.settled(answer.call);
        retry = false;
      } else if (response.status >= 400 && response.status < 500 && response.status !== 429) {
        const problem = await response.json().catch(() => ({}));
        // a 409 naming the key: the same call, still being stored by an earlier try
        retry = response.status === 409 && problem.field === "Idempotency-Key";
        pending.problem = retry
          ? t("Calling a judge: {reason}…", { reason: reasonWords(pending.reason) })
          : t("The call was refused: {problem}", { problem: problem.detail ?? response.status });
      } else {
        pending.problem = t("The call is not sent yet: the server did not answer. It is sent again every few seconds; raise a hand for a judge meanwhile.");
      }
    } catch {
      pending.problem = t("The call is not sent: no network. It is sent again every few seconds; raise a hand for a judge meanwhile.");
    }
    if (retry && this.pending === pending) {
      localStorage.setItem(this.storageKey, JSON.stringify(pending));
      this.timer = setTimeout(() => this.send(), RETRY_MS);
    }
    this.render();
  }

  /** @param {any} call */
  settled(call) {
    this.pending = null;
    localStorage.removeItem(this.storageKey);
    if (call && !this.calls.some((c) => c.id === call.id)) this.calls = [...this.calls, call];
    this.render();
  }

  /** The `calls` channel's state. @param {{ calls: any[] }} state */
  onCalls(state) {
    this.calls = state.calls ?? [];
    this.render();
  }

  render() {
    const status = document.getElementById("call-status");
    if (!status) return;
    const who = this.hooks.who();
    const mine = who ? this.calls.filter((c) => c.table === who.table && c.round === who.round) : [];
    const last = mine[mine.length - 1];
    let text = "";
    let state = "";
    if (this.pending) {
      text = this.pending.problem ?? t("Calling a judge: {reason}…", { reason: reasonWords(this.pending.reason) });
      state = this.pending.problem ? "unsent" : "sending";
    } else if (last) {
      const since = last.called_at
        ? Math.max(0, Math.floor((this.hooks.now() - Date.parse(last.called_at)) / 1000))
        : null;
      if (last.state === "taken") {
        text = t("A judge is on the way ({reason}).", { reason: reasonWords(last.reason) });
        state = "taken";
      } else {
        text =
          since === null
            ? t("Judge called ({reason}).", { reason: reasonWords(last.reason) })
            : t("Judge called ({reason}) · waiting {time}", {
                reason: reasonWords(last.reason),
                time: formatClock(since),
              });
        state = "waiting";
      }
    }
    status.hidden = !text;
    status.textContent = text;
    status.dataset.state = state;
  }
}
