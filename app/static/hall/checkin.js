// @ts-check
// The hall's check-in view (issue 18, part 4): "checked in: 498 of 520" and who is missing,
// live from the feed's `checkin` channel (app/read/checkin.py).
//
// `?page=checkin` gives the screen to it: the count, large, and the missing players by
// table (the channel sends the first 100; the count says how many there are in all).
// Without it, the hall's header carries the count while the round has not begun, so the
// organizer sees the room fill up, and drops it once play starts.
// Names are data: they only reach the page through textContent, marked translate="no".

import { namesFor, t, tn } from "/static/i18n.js";
import { LiveFeed } from "/static/live.js";

const hall = document.getElementById("hall");
const params = new URLSearchParams(location.search);
const FULL = params.get("page") === "checkin";

/**
 * @param {string} tag
 * @param {string} [className]
 * @param {string} [text]
 */
function node(tag, className, text) {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text !== undefined) made.textContent = text;
  return made;
}

/** The count in the header: made once, shown while the round has not begun. */
function headerCount() {
  const badge = node("span", "hall-checkin-count");
  badge.id = "checkin-count";
  badge.setAttribute("role", "status");
  badge.hidden = true;
  hall?.querySelector(".hall-health")?.prepend(badge);
  return badge;
}

/** The full view: the count and the missing, in place of the standings and the tables. */
function fullView() {
  const view = node("section", "hall-checkin");
  view.id = "checkin";
  view.setAttribute("aria-label", t("Check-in"));
  const count = node("h2", "hall-checkin-big");
  count.id = "checkin-big";
  const note = node("p", "hall-checkin-note");
  note.id = "checkin-note";
  const list = node("ol", "hall-checkin-missing");
  list.id = "checkin-missing";
  view.append(count, note, list);
  const main = hall?.querySelector(".hall-main");
  if (main instanceof HTMLElement) main.hidden = true;
  main?.after(view);
  return { view, count, note, list };
}

const badge = headerCount();
const full = FULL ? fullView() : null;
if (full) document.body.classList.add("hall-checkin-page");

const countText = (state) =>
  t("checked in: {checked} of {expected}", {
    checked: state.checked_in,
    expected: state.expected,
  });

function render(state) {
  // the header: before play only, and only once someone is expected
  badge.hidden = FULL || !state.open || state.started || !state.expected;
  badge.textContent = countText(state);
  if (!full) return;
  full.count.textContent = countText(state);
  const missing = tn("{count} player missing", "{count} players missing", state.missing, {
    count: state.missing,
  });
  const shown = t("the first {shown} by table", { shown: state.players.length });
  full.note.textContent = !state.missing
    ? t("Everyone is here.")
    : state.missing > state.players.length
      ? t("{missing} · {shown}", { missing, shown })
      : missing;
  full.list.replaceChildren(
    ...state.players.map((player) => {
      const [shown] = namesFor(player.name, player.local_name);
      const item = node("li", player.replaced ? "replaced" : "");
      item.dataset.player = player.player;
      const table = node(
        "span",
        "table",
        player.table === null ? "–" : t("Table {table}", { table: player.table }),
      );
      const name = node("span", "name", shown);
      name.translate = false;
      item.append(table, name);
      if (player.country) {
        const country = node("span", "country", player.country);
        country.translate = false;
        item.append(country);
      }
      if (player.replaced) item.append(node("span", "note", t("substitute seated")));
      return item;
    }),
  );
}

if (hall) {
  const tournamentId = Number(hall.dataset.tournament);
  const feed = new LiveFeed(tournamentId, ["checkin"], {
    onState(channel, state) {
      if (channel === "checkin") render(state);
    },
  });
  feed.connect();
  // @ts-ignore -- for the browser tests, beside hall.js's own feed (window.hallDisplay)
  window.hallCheckIn = { feed };
}
