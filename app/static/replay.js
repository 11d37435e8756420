// @ts-check
// The day so far (issue 18): a time slider on the spectators' home that shows the standings
// as they were at any moment of the day, the log replayed up to it on the server
// (GET /api/tournaments/{tid}/standings?at=TIME). A phone asks for a page, not the field:
// the leaders (`top`) and the players it follows (`players`), with their names. Loaded only
// when the section is opened, so the player pages never carry it.

import { formatTime, namesFor, t } from "/static/i18n.js";
import { pointsShown } from "/static/live.js";

const LEADERS = 8;
const WAIT_MS = 250; // a finger dragging the slider asks once it rests, not at every step
const MINUTE = 60_000;

/**
 * @param {number} tournament
 * @param {string[]} followed the ids this phone follows in that tournament
 * @param {boolean} ariari whether its scores are Ari Ari points
 */
export function start(tournament, followed, ariari) {
  const slider = /** @type {HTMLInputElement} */ (document.getElementById("moment"));
  const shown = /** @type {HTMLOutputElement} */ (document.getElementById("moment-shown"));
  const status = /** @type {HTMLElement} */ (document.getElementById("replay-status"));
  const list = /** @type {HTMLOListElement} */ (document.getElementById("moment-rows"));
  const mine = new Set(followed);
  /** @type {AbortController | null} */
  let asking = null;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let waiting;

  /** @param {Date} moment */
  async function ask(moment) {
    asking?.abort();
    asking = new AbortController();
    const query = new URLSearchParams({ at: moment.toISOString(), top: String(LEADERS) });
    if (followed.length) query.set("players", followed.slice(0, 20).join(","));
    status.textContent = t("Replaying the log…");
    try {
      const answer = await fetch(`/api/tournaments/${tournament}/standings?${query}`, { signal: asking.signal });
      if (!answer.ok) throw new Error(String(answer.status));
      const body = await answer.json();
      draw(body);
      return body;
    } catch (error) {
      if (/** @type {Error} */ (error).name === "AbortError") return null;
      status.textContent = t("The standings of that moment could not be loaded (offline?)");
      return null;
    }
  }

  /** @param {any} body */
  function draw(body) {
    const round = body.rounds?.[0];
    const rows = round?.standings ?? [];
    status.textContent = round && rows.length
      ? t("Round {round} at {time}", { round: round.round, time: formatTime(new Date(body.at)) })
      : t("No hand had been played yet.");
    list.replaceChildren(
      ...rows.map((/** @type {any} */ row) => {
        const who = body.players?.[row.player] ?? { name: row.player, local_name: null, country: null };
        const [name] = namesFor(who.name, who.local_name);
        const item = document.createElement("li");
        item.dataset.player = row.player;
        if (mine.has(row.player)) item.classList.add("mine");
        const place = document.createElement("span");
        place.className = "rank";
        place.textContent = t("#{rank}", { rank: row.rank });
        const label = document.createElement("span");
        label.className = "name";
        label.translate = false;
        label.textContent = name;
        const total = document.createElement("span");
        total.className = "total";
        // a true minus sign, as the rest of the phone's pages write a negative total
        total.textContent = ariari ? pointsShown(row.total, { minus: "\u2212" }) : row.shown.replace("-", "\u2212");
        item.append(place, label, total);
        return item;
      }),
    );
  }

  function moved() {
    const moment = new Date(Number(slider.value) * MINUTE);
    shown.textContent = formatTime(moment);
    clearTimeout(waiting);
    waiting = setTimeout(() => ask(moment), WAIT_MS);
  }

  // The first answer (now) gives the slider its two ends: the log's first and latest times.
  ask(new Date()).then((body) => {
    if (!body?.first_time) return;
    slider.min = String(Math.floor(Date.parse(body.first_time) / MINUTE));
    slider.max = String(Math.ceil(Date.parse(body.last_time ?? body.at) / MINUTE));
    slider.value = slider.max;
    slider.disabled = false;
    shown.textContent = formatTime(new Date(Number(slider.value) * MINUTE));
  });
  slider.addEventListener("input", moved);
}
