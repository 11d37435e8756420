// @ts-check
// The console's check-in desk (issue 18, part 4; admin.html #step-checkin): who has checked
// in for the round being played, who is missing, a check-in at the desk, a substitute in a
// missing player's seat (rule FM-9) and a late player's penalty (rules CI-5, PN-1).
// admin.js gives it its API helpers; names are only ever set as text.

import { formatTime, t } from "../i18n.js";
import { el } from "../dom.js";

/** @type {(selector: string, root?: ParentNode) => any} */
const $ = (selector, root = document) => root.querySelector(selector);


const tablesText = (tables) =>
  tables.some((table) => table !== null)
    ? tables.map((table) => (table === null ? "–" : String(table))).join(" · ")
    : t("no seat");

/**
 * @typedef {{
 *   getJSON: (path: string, options?: any) => Promise<any>,
 *   post: (path: string, json: any) => Promise<any>,
 *   api: (suffix?: string) => string,
 *   activity: (text: string, ok?: boolean) => void,
 *   changed: () => void,
 * }} Helpers
 */

export class CheckInDesk {
  /** @param {Helpers} helpers */
  constructor(helpers) {
    this.helpers = helpers;
    this.call = null;
    const desk = $("#checkin-desk");
    desk?.addEventListener("submit", (event) => {
      event.preventDefault();
      const player = String(new FormData(desk).get("player") ?? "").trim();
      this.act(desk, () => this.helpers.post(this.helpers.api("/check-ins"), { player }), () =>
        desk.reset(),
      );
    });
  }

  /** Run one of the desk's writes, saying what went wrong beside the button pressed. */
  async act(form, write, after = () => {}) {
    const output = $("output", form);
    if (output) output.textContent = "";
    for (const button of form.querySelectorAll("button")) button.disabled = true;
    try {
      const answer = await write();
      after();
      if (answer?.name && answer.how) {
        this.helpers.activity(
          answer.already
            ? t("{name} had already checked in", { name: answer.name })
            : t("{name} checked in", { name: answer.name }),
        );
      }
      await this.load();
      this.helpers.changed();
    } catch (error) {
      if (output) output.textContent = error.message;
      this.helpers.activity(error.message, false);
    } finally {
      for (const button of form.querySelectorAll("button")) button.disabled = false;
    }
  }

  async load() {
    const section = $("#step-checkin");
    if (!section) return;
    try {
      this.call = await this.helpers.getJSON(this.helpers.api("/check-ins"));
    } catch (error) {
      // a round that has ended takes no check-in: the card says so and waits for the next
      this.call = null;
      $("#checkin-count").textContent = error.message;
      $("#checkin-missing tbody").replaceChildren();
      $("#checkin-late tbody").replaceChildren();
      return;
    }
    this.render();
  }

  render() {
    const call = this.call;
    $("#checkin-count").textContent = t("Round {round}: {checked} of {expected} checked in", {
      round: call.round,
      checked: call.checked_in,
      expected: call.expected,
    });
    $("#checkin-started").hidden = !call.started;
    // A substitute's name being typed survives the list drawn again (a check-in at the desk,
    // a live update): the organizer never types it twice.
    const typing = new Map();
    let focused = null;
    for (const input of document.querySelectorAll("#checkin-missing tr[data-player] input[name=name]")) {
      const player = /** @type {HTMLElement} */ (input.closest("tr")).dataset.player;
      const value = /** @type {HTMLInputElement} */ (input).value;
      if (value) typing.set(player, value);
      if (input === document.activeElement) focused = player;
    }
    const missing = call.missing.map((row) => this.missingRow(row));
    $("#checkin-missing tbody").replaceChildren(
      ...(missing.length
        ? missing
        : [el("tr", {}, el("td", { colspan: 4, class: "muted" }, t("Nobody is missing.")))]),
    );
    for (const row of document.querySelectorAll("#checkin-missing tr[data-player]")) {
      const player = /** @type {HTMLElement} */ (row).dataset.player;
      const input = /** @type {HTMLInputElement | null} */ (row.querySelector("input[name=name]"));
      if (input === null || player === undefined) continue;
      if (typing.has(player)) input.value = typing.get(player);
      if (player === focused) input.focus();
    }
    const late = call.late.map((row) => this.lateRow(row, call.round));
    $("#checkin-late tbody").replaceChildren(
      ...(late.length
        ? late
        : [el("tr", {}, el("td", { colspan: 4, class: "muted" }, t("Nobody came late.")))]),
    );
  }

  missingRow(row) {
    const checkIn = el("form", { class: "inline" }, el("button", { class: "quiet" }, t("Check in")));
    checkIn.addEventListener("submit", (event) => {
      event.preventDefault();
      this.act(checkIn, () =>
        this.helpers.post(this.helpers.api("/check-ins"), { player: row.player }),
      );
    });
    const actions = el("td", { class: "actions" }, checkIn);
    if (row.replaced_by !== null) {
      actions.append(
        el("span", { class: "muted" }, t("replaced by {player}", { player: row.replaced_by })),
      );
    } else {
      const seat = el(
        "form",
        { class: "inline substitute" },
        el("input", {
          name: "name",
          required: true,
          maxlength: 200,
          placeholder: t("Substitute's name"),
          "aria-label": t("Substitute's name"),
          autocomplete: "off",
        }),
        el("button", {}, t("Seat a substitute")),
        el("output", { class: "problem", role: "alert" }),
      );
      seat.addEventListener("submit", (event) => {
        event.preventDefault();
        const name = String(new FormData(/** @type {HTMLFormElement} */ (seat)).get("name") ?? "").trim();
        this.act(seat, async () => {
          const answer = await this.helpers.post(this.helpers.api("/substitutes"), {
            player: row.player,
            name,
          });
          this.helpers.activity(
            t("{name} sits in {player}'s seat (rule FM-9)", { name, player: row.name }),
          );
          return answer;
        });
      });
      actions.append(seat);
    }
    return el(
      "tr",
      { "data-player": row.player },
      el("td", { translate: "no" }, String(row.player)),
      el("td", { translate: "no" }, row.name),
      el("td", {}, tablesText(row.tables)),
      actions,
    );
  }

  lateRow(row, round) {
    const given = row.penalties
      .map(([points, reason]) => t("{points} ({reason})", { points, reason }))
      .join(t(", "));
    const fine = el(
      "form",
      { class: "inline" },
      el("input", {
        name: "points",
        type: "number",
        max: -1,
        required: true,
        class: "narrow",
        "aria-label": t("Penalty points"),
        placeholder: "-10",
      }),
      el("button", { class: "quiet" }, t("Give a late penalty")),
      el("output", { class: "problem", role: "alert" }),
    );
    fine.addEventListener("submit", (event) => {
      event.preventDefault();
      const data = new FormData(/** @type {HTMLFormElement} */ (fine));
      const points = Number.parseInt(String(data.get("points") ?? ""), 10);
      this.act(fine, async () => {
        const answer = await this.helpers.post(this.helpers.api("/penalties"), {
          round,
          player: row.player,
          points,
          reason: "late arrival",
        });
        this.helpers.activity(t("Penalty {points} for {name}: late (rule PN-1)", { points, name: row.name }));
        return answer;
      });
    });
    return el(
      "tr",
      { "data-player": row.player },
      el("td", { translate: "no" }, String(row.player)),
      el("td", { translate: "no" }, row.name),
      el("td", {}, row.at ? formatTime(new Date(row.at)) : "–"),
      el("td", { class: "actions" }, given ? el("span", {}, given) : fine),
    );
  }
}
