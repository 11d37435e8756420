// @ts-check
// The hall's story page (issue 18, part 2): the story of the session from the live `stats`
// channel (app/read/stats.py; docs/contract.md §4), a page of the rotation with `?story=1`,
// pinned with `?page=story`. Six cards read from across the hall: the biggest hands of the
// round and of the segment, the biggest movers, who crossed the line with the last hand,
// each table's leader and how the hands ended.
// hall.js lends it its speaker (the language spoken now), its `label` (a heading in the
// second language beneath the first) and its names; this module draws and nothing else.
// Names are data: they reach the page through textContent only, marked translate="no".

import { joined, segmentWord } from "./session.js";

/** @typedef {import("./words.js").Speaker} Speaker */

/**
 * @typedef {object} StoryHost what the hall lends the story page
 * @property {() => Speaker} speaker the language the screen speaks now
 * @property {(target: Element, phrase: (speaker: Speaker) => string) => void} label
 * @property {(player: string, known?: object) => Node[]} nameNodes
 * @property {boolean} ariari figures in points (rule AA-22), with thousands separators
 * @property {(exact: string) => string} points a whole number of points as the hall shows it
 * @property {(exact: string, shown: string) => string} figure a total as the hall shows it
 * @property {Record<string, string>} segmentKinds each round's segment: half, quarter, game
 * @property {() => boolean} hasCut whether the round has a cut line (not a final)
 */

const SHOWN = 3; // entries a card holds at most: each read from across the hall
const FIT_STEPS = [1, 0.9, 0.8, 0.7]; // a card's font shrinks this far before it drops one

/**
 * @param {string} tag
 * @param {string} [className]
 * @param {string | number} [text]
 */
function node(tag, className, text) {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text !== undefined && text !== null) made.textContent = String(text);
  return made;
}

/**
 * The story page in `section`, drawn from a `stats` state.
 * @param {HTMLElement} section
 * @param {StoryHost} host
 */
export function storyPage(section, host) {
  /** @param {number} value a signed whole number of points: "+96", "−12", "0" */
  const signed = (value) => {
    const shown = host.points(String(Math.abs(value)));
    return value > 0 ? `+${shown}` : value < 0 ? `−${shown}` : shown;
  };

  const playerNodes = (state, player) => host.nameNodes(String(player), state.players?.[String(player)]);

  // "Half 1 · group A": the segment the story tells, in a speaker's words
  const segmentOf = (state, speaker) => {
    const kind = host.segmentKinds[String(state.round)] ?? "segment";
    const segment = segmentWord(kind, state.segment, speaker);
    // rule FM-2: round 1's groups each number their own segments
    if (!state.group || kind === "game") return segment;
    return joined(segment, speaker.t("group {group}", { group: state.group }));
  };

  /**
   * A card: its title (in the second language too) and its entries.
   * @param {string} name
   * @param {(speaker: Speaker) => string} title
   * @param {HTMLElement[]} items
   * @param {string} empty what the card says without entries
   */
  function card(name, title, items, empty) {
    const made = node("section", `story-card story-${name}`);
    made.dataset.card = name;
    const head = node("h2", "story-title");
    host.label(head, title);
    const list = node("ol", "story-list");
    if (items.length) list.append(...items);
    else list.append(node("li", "story-empty", empty));
    made.append(head, list);
    return made;
  }

  /**
   * An entry: a figure, a name and a figure beside it, a line of detail beneath.
   * @param {{ lead?: string, leadClass?: string, names: Node[], side?: string, sideClass?: string,
   *   detail: (string | Node)[], player: string, kind?: string }} parts
   */
  function entry(parts) {
    const item = node("li", `story-item${parts.kind ? ` ${parts.kind}` : ""}`);
    item.dataset.player = parts.player;
    const main = node("div", "story-main");
    if (parts.lead !== undefined) main.append(node("span", `story-lead num ${parts.leadClass ?? ""}`, parts.lead));
    const name = node("span", "story-name");
    name.append(...parts.names);
    main.append(name);
    if (parts.side !== undefined) main.append(node("span", `story-side num ${parts.sideClass ?? ""}`, parts.side));
    const detail = node("div", "story-detail");
    // each part gives way (ending in "…") rather than run past the card
    const pieces = parts.detail.map((part) => {
      if (typeof part !== "string") return part;
      return node("span", "story-part", part);
    });
    const dot = () => node("span", "story-dot", "·");
    detail.append(...pieces.flatMap((part, index) => (index ? [dot(), part] : [part])));
    item.append(main, detail);
    return item;
  }

  // a win's kind in the table's words: a WSOM self-draw or discard win, an Ari Ari tsumo or ron
  function winWord(kind, { t }) {
    if (kind === "self_draw") return host.ariari ? t("Tsumo") : t("Self-draw");
    if (kind === "discard") return host.ariari ? t("Ron") : t("Discard win");
    return t("Ruling"); // a ruling of points naming its winner (rule HS-7)
  }

  function bigHands(state, hands, withSegment) {
    const speaker = host.speaker();
    return hands.slice(0, SHOWN).map((hand) => {
      /** @type {(string | Node)[]} */
      const detail = [winWord(hand.kind, speaker), speaker.t("Table {table}", { table: hand.table })];
      if (hand.discarder !== null && hand.discarder !== undefined) {
        const from = node("span", "story-part story-from");
        const [discarder] = playerNodes(state, hand.discarder);
        from.append(node("span", "story-by", speaker.t("dealt in by")), discarder);
        detail.push(from);
      }
      // a hand of the round from another segment than the one told now says which
      if (withSegment && hand.segment !== state.segment) {
        const kind = host.segmentKinds[String(state.round)] ?? "segment";
        detail.push(segmentWord(kind, hand.segment, speaker));
      }
      // rule HS-4: the hand's value as scored (AA-22: its payment, in points)
      return entry({
        lead: host.points(String(hand.value)),
        leadClass: "value",
        names: playerNodes(state, hand.player),
        detail,
        player: String(hand.player),
        kind: hand.kind,
      });
    });
  }

  function movers(state) {
    const { t } = host.speaker();
    const fallers = state.fallers ?? [];
    const climbers = (state.climbers ?? []).slice(0, fallers.length ? SHOWN - 1 : SHOWN);
    const shown = [
      ...climbers.map((m) => ({ m, up: true })),
      ...fallers.map((m) => ({ m, up: false })),
    ];
    return shown.slice(0, SHOWN).map(({ m, up }) => entry({
      lead: up ? "▲" : "▼",
      leadClass: up ? "up" : "down",
      names: playerNodes(state, m.player),
      side: signed(m.change),
      sideClass: m.change >= 0 ? "up" : "down",
      // rule ST-2: the rank before the segment's hands and now
      detail: [
        t("Rank {before} → {now}", { before: m.rank_before, now: m.rank }),
        t("Table {table}", { table: m.table }),
      ],
      player: String(m.player),
      kind: up ? "climber" : "faller",
    }));
  }

  function crossed(state) {
    const { t } = host.speaker();
    return (state.crossed ?? []).slice(0, SHOWN).map((c) => entry({
      lead: c.up ? "✓" : "✗",
      leadClass: c.up ? "up" : "down",
      names: playerNodes(state, c.player),
      side: host.figure(c.total, c.shown),
      // rule ST-3: the line lies between position A and A+1
      detail: [
        c.up ? t("Over the line") : t("Under the line"),
        t("Place {before} → {now}", { before: c.position_before, now: c.position }),
      ],
      player: String(c.player),
      kind: c.up ? "crossed-up" : "crossed-down",
    }));
  }

  function leaders(state) {
    const { t, tn } = host.speaker();
    return (state.leaders ?? []).slice(0, SHOWN).map((leader) => {
      const detail = [
        t("Table {table}", { table: leader.table }),
        tn("{count} hand", "{count} hands", leader.hands),
      ];
      if (leader.shared) detail.push(t("level at the top")); // the first in seat order named
      return entry({
        names: playerNodes(state, leader.player),
        side: signed(leader.points),
        sideClass: leader.points >= 0 ? "up" : "down",
        detail,
        player: String(leader.player),
        kind: "leader",
      });
    });
  }

  // How the hands ended: the segment's and the round's counts side by side.
  function counts(state) {
    const speaker = host.speaker();
    const { t } = speaker;
    const round = state.counts?.round ?? {};
    const segment = state.counts?.segment ?? {};
    const rows = [
      ["self_draws", host.ariari ? t("Tsumo") : t("Self-draws")],
      ["discards", host.ariari ? t("Ron") : t("Discard wins")],
      ["draws", t("Draws")],
    ];
    if (round.others || segment.others) rows.push(["others", t("Other endings")]);
    const head = node("li", "story-count story-count-head");
    head.append(
      node("span", "story-count-name"),
      node("span", "num", segmentOf(state, speaker)),
      node("span", "num", t("Round {number}", { number: state.round })),
    );
    const lines = rows.map(([key, word]) => {
      const row = node("li", "story-count");
      row.dataset.count = key;
      row.append(
        node("span", "story-count-name", word),
        node("span", "num", segment[key] ?? 0),
        node("span", "num", round[key] ?? 0),
      );
      return row;
    });
    return [head, ...lines];
  }

  // A card's entries fit its box: its font shrinks a little, then the last entries go.
  function fit() {
    for (const made of section.querySelectorAll(".story-card")) {
      const box = /** @type {HTMLElement} */ (made);
      const list = box.querySelector(".story-list");
      const over = () =>
        box.scrollHeight > box.clientHeight + 1 || list.scrollHeight > list.clientHeight + 1;
      for (const scale of FIT_STEPS) {
        box.style.setProperty("--fit", String(scale));
        if (!over()) break;
      }
      while (over() && list.children.length > 1) list.lastElementChild.remove();
    }
  }

  return {
    /**
     * Draw the story of a `stats` state (null: none yet).
     * @param {any} state
     */
    render(state) {
      const speaker = host.speaker();
      if (!state || state.segment === null || state.segment === undefined) {
        const none = node("p", "story-none");
        none.textContent = state
          ? speaker.t("No hand played yet in round {number}", { number: state.round })
          : speaker.t("Waiting for the story of the session");
        section.replaceChildren(none);
        return;
      }
      const round = { number: state.round };
      // a title naming the segment, in each speaker's words: "Biggest hands · Half 1"
      const about = (phrase) => (said) => phrase(said, { segment: segmentOf(state, said) });
      const noWin = speaker.t("No winning hand yet");
      const noCrossing = host.hasCut()
        ? speaker.t("No one crossed the line")
        : speaker.t("No cut in this round");
      section.replaceChildren(
        card(
          "hands-round",
          ({ t }) => t("Biggest hands · Round {number}", round),
          bigHands(state, state.hands?.round ?? [], true),
          noWin,
        ),
        card(
          "hands-segment",
          about(({ t }, values) => t("Biggest hands · {segment}", values)),
          bigHands(state, state.hands?.segment ?? [], false),
          noWin,
        ),
        card(
          "movers",
          about(({ t }, values) => t("Biggest movers · {segment}", values)),
          movers(state),
          speaker.t("No one's rank has changed"),
        ),
        card("crossed", ({ t }) => t("Crossed the line · last hand"), crossed(state), noCrossing),
        card(
          "leaders",
          about(({ t }, values) => t("Table leaders · {segment}", values)),
          leaders(state),
          noWin,
        ),
        card("counts", ({ t }) => t("How the hands ended"), counts(state), ""),
      );
      fit();
    },
  };
}
