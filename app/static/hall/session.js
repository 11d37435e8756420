// @ts-check
// The hall display's session clock (issue 15, from hall.js): the deadline most tables share,
// the segment they play and the hands played, from the clocks channel's tables at the
// server's time. No DOM here: hall.js draws it, tests/js/hall_session.test.js runs it.
// Its words are a speaker's (hall/words.js): the page's language, or the second one.

import { formatClock, secondsLeft } from "../live.js";
import { FIRST } from "./words.js";

/** @typedef {import("./words.js").Speaker} Speaker */

/**
 * @typedef {object} Rounds what the page says of the tournament's rounds
 * @property {Record<string, string>} segmentKinds each round's segment: half, quarter, game
 * @property {Set<number>} groupedRounds the rounds played in groups (rule FM-2)
 */

export function mostCommon(values) {
  const counts = new Map();
  let best = null;
  let bestCount = 0;
  for (const value of values) {
    const count = (counts.get(value) ?? 0) + 1;
    counts.set(value, count);
    if (count > bestCount) {
      best = value;
      bestCount = count;
    }
  }
  return best;
}

/**
 * "3 hands", in a speaker's words.
 * @param {number} count
 * @param {Speaker} [speaker]
 */
export function handCount(count, { tn } = FIRST) {
  return tn("{count} hand", "{count} hands", count);
}

/**
 * "Half 1": a segment by its kind (the tournament's words: ハーフ, クォーター).
 * @param {string} kind
 * @param {number} number
 * @param {Speaker} [speaker]
 */
export function segmentWord(kind, number, { t } = FIRST) {
  const values = { number };
  if (kind === "half") return t("Half {number}", values);
  if (kind === "quarter") return t("Quarter {number}", values);
  if (kind === "game") return t("Game {number}", values);
  if (kind === "session") return t("Session {number}", values);
  return t("Segment {number}", values);
}

// "Half 1 · group A": the segment the given tables play (the group only in a round played
// in groups, rule FM-2, and only if they share it).
export function segmentName(rows, rounds, speaker = FIRST) {
  const row = rows[0];
  if (!row) return "";
  const kind = segmentKindOf(row, rounds);
  const groups = new Set(rows.map((r) => r.group));
  const grouped = rounds.groupedRounds.has(row.round) && groups.size === 1 && row.group;
  const segment = segmentWord(kind, row.segment, speaker);
  return grouped ? joined(segment, speaker.t("group {group}", { group: row.group })) : segment;
}

export function segmentKindOf(row, rounds) {
  return rounds.segmentKinds[String(row.round)] ?? "segment";
}

// What the tables have played. A half or a quarter has its hands planned (rule FM-2); an
// Ari Ari game has none (it ends by rules AA-12 to AA-14), so it counts the hands played.
export function handsPlayed(rows, rounds, speaker = FIRST) {
  const done = rows.reduce((n, r) => n + r.hands_completed, 0);
  if (rows.some((r) => segmentKindOf(r, rounds) === "game")) return rows.length === 1 ? handCount(done, speaker) : "";
  const planned = rows.reduce((n, r) => n + r.planned_hands, 0);
  return speaker.t("{done}/{planned} hands", { done, planned });
}

export function joined(...parts) {
  return parts.filter(Boolean).join(" · ");
}

// The session clock: the deadline most tables share, counted down from the server's time
// (rule CL-6); tables with a deadline of their own (an extension) count in their own cell.
export function sessionClock(tables, now, rounds, speaker = FIRST) {
  const { t, tn } = speaker;
  const rows = Object.values(tables);
  if (!rows.length) return { label: t("Session"), time: "–", note: "", kind: "idle" };
  const hands = handsPlayed(rows, rounds, speaker);
  const breaks = rows.filter((r) => r.phase === "break" && r.break_ends);
  if (breaks.length * 2 > rows.length) {
    const ends = mostCommon(breaks.map((r) => r.break_ends));
    const left = secondsLeft({ deadline: ends }, now);
    return { label: t("Break"), time: formatClock(left), note: segmentName(breaks, rounds, speaker), kind: "break", deadline: null };
  }
  const timed = rows.filter((r) => r.deadline && !r.play_all);
  if (!timed.length) {
    const done = rows.every((r) => r.phase === "finished");
    return {
      label: t("Session"),
      time: done ? t("Finished") : t("No limit"),
      note: joined(segmentName(rows, rounds, speaker), hands),
      kind: done ? "finished" : "untimed",
    };
  }
  const over = (r) => r.phase === "finished" || r.phase === "finished_short" || r.phase === "break";
  // Tables still playing decide the session; once all are over, the most common deadline.
  const playingTimed = timed.filter((r) => !over(r));
  const shared = largestDeadlineGroup(playingTimed.length ? playingTimed : timed);
  const deadline = shared[0].deadline;
  // the hands of the segments this clock times, finished tables too: "Half 1 · group A"
  // counts group A's alone, not group B's that has not started
  const timedKey = (r) => `${r.round}/${r.segment}/${r.group ?? ""}`;
  const timedSegments = new Set(shared.map(timedKey));
  const segmentHands = handsPlayed(rows.filter((r) => timedSegments.has(timedKey(r))), rounds, speaker);
  const note = joined(segmentName(shared, rounds, speaker), segmentHands);
  if (shared.every(over)) return { label: t("Session"), time: t("Finished"), note, kind: "finished", deadline };
  const starts = mostCommon(shared.map((r) => r.starts_at).filter(Boolean));
  if (starts && now < Date.parse(starts)) {
    return { label: t("Starts in"), time: formatClock(secondsLeft({ deadline: starts }, now)), note, kind: "waiting", deadline };
  }
  const leftMs = Date.parse(deadline) - now;
  if (leftMs >= 0) {
    const kind = leftMs <= 5 * 60 * 1000 ? "closing" : "running";
    return { label: t("Time left"), time: formatClock(secondsLeft({ deadline }, now)), note, kind, deadline };
  }
  // rule CL-3: past the deadline, hands dealt in time are finished; no new hand starts
  const playing = shared.filter((r) => !over(r)).length;
  return {
    label: t("Overtime"),
    time: `+${formatClock(Math.floor(-leftMs / 1000))}`,
    note: joined(tn("{count} table finishing a hand", "{count} tables finishing a hand", playing), segmentHands),
    kind: "overtime",
    deadline,
  };
}

// Deadlines less than this apart are one session clock (groups opened a moment apart); an
// extension is whole minutes, so a table given one counts down in its own cell.
export const SAME_DEADLINE_MS = 30000;

export function sameDeadline(a, b) {
  return a !== null && b !== null && Math.abs(Date.parse(a) - Date.parse(b)) < SAME_DEADLINE_MS;
}

// The tables that share the most common deadline, earliest deadline first.
export function largestDeadlineGroup(rows) {
  const sorted = [...rows].sort((a, b) => Date.parse(a.deadline) - Date.parse(b.deadline));
  let best = [];
  let group = [];
  for (const row of sorted) {
    if (group.length && !sameDeadline(group[0].deadline, row.deadline)) group = [];
    group.push(row);
    if (group.length > best.length) best = group;
  }
  return best;
}
