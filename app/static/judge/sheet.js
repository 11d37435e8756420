// @ts-check
// A paper score sheet's rows as the scorer types them (issue 18, part 5; static/scorer.js):
// what a row says, what is wrong with it as typed, and the sheet's code. No DOM here:
// tests/js/sheet.test.js runs it under Node.

import { formatTime, t } from "../i18n.js";

export const COLUMNS = ["1", "2", "3", "4"];
export const DRAW = "D";
export const SELF_DRAW = "S";
export const FIELDS = ["winner", "from", "value", "dealt"];
// rule CL-3: a time of day as the sheet's Dealt column holds it, 14:05 or 1405
const CLOCK_TIME = /^([01]?\d|2[0-3]):?([0-5]\d)$/;

// -- a sheet's code: "2-1-14", or the address its QR code holds ---------------------------

/** @param {string} text */
export function sheetCode(text) {
  let code = text.trim();
  try {
    code = new URL(code).searchParams.get("sheet") ?? code;
  } catch {
    // not an address: the code itself
  }
  const match = /^(\d{1,9})-(\d{1,9})-(\d{1,9})$/.exec(code.trim());
  if (!match) return null;
  return { round: Number(match[1]), segment: Number(match[2]), table: Number(match[3]) };
}

// -- a row: what it says, and what is wrong with it ------------------------------------

/**
 * When the sheet says a hand was dealt, as a moment (ISO 8601): the time of day on the day
 * nearest the segment's scheduled start, as this machine's clock reads the hall's time.
 * @param {string} text
 * @param {string} start
 */
export function dealtAt(text, start) {
  const match = CLOCK_TIME.exec(text.trim());
  if (!match || !start) return null;
  const scheduled = new Date(start);
  const candidates = [-1, 0, 1].map((days) => {
    const moment = new Date(scheduled);
    moment.setDate(moment.getDate() + days);
    moment.setHours(Number(match[1]), Number(match[2]), 0, 0);
    return moment;
  });
  const nearest = candidates.reduce((best, moment) =>
    Math.abs(moment.getTime() - scheduled.getTime()) < Math.abs(best.getTime() - scheduled.getTime()) ? moment : best,
  );
  return nearest.toISOString();
}

/**
 * The row's hand as the log writes it (CONTRACT §1), when its tiles were dealt (a timed
 * segment's hand with no deal recorded, rule CL-3), and each field's problem.
 * @param {{ winner: string, from: string, value: string, dealt: string }} row
 * @param {any} sheet
 * @param {number} index the row's place on the sheet
 */
export function readRow(row, sheet, index) {
  /** @type {Record<string, string>} */
  const problems = {};
  const winner = row.winner.trim().toUpperCase();
  const from = row.from.trim().toUpperCase();
  const value = row.value.trim();
  const dealtText = row.dealt.trim();
  if (!winner && !from && !value && !dealtText) return { empty: true, problems, result: null, dealt: null };
  const player = (column) => sheet.players[Number(column) - 1].player;
  let dealt = null;
  const hand = sheet.hands[index];
  if (sheet.timed && !hand.dealt && !hand.stored) {
    dealt = dealtAt(dealtText, sheet.scheduled_start);
    if (!dealt) problems.dealt = t("the time its tiles were all dealt, such as 14:05 (rule CL-3)");
    else if (sheet.deadline && Date.parse(dealt) > Date.parse(sheet.deadline)) {
      problems.dealt = t("dealt after the deadline, {deadline}: the hand does not count (rule CL-3)", {
        deadline: formatTime(new Date(sheet.deadline)),
      });
    }
  }
  if (winner === DRAW) {
    if (from) problems.from = t("a draw has no discarder (rule HS-1)");
    if (value) problems.value = t("a draw has no value (rule HS-1)");
    const drawn = Object.keys(problems).length ? null : { kind: "draw" };
    return { empty: false, problems, result: drawn, dealt };
  }
  if (!COLUMNS.includes(winner)) problems.winner = t("the winner's column, 1 to 4, or D for a draw (rule HS-1)");
  if (from !== SELF_DRAW && !COLUMNS.includes(from)) {
    problems.from = t("the discarder's column, 1 to 4, or S for a self-draw (rule HS-1)");
  } else if (from === winner) {
    problems.from = t("the winner cannot be the discarder (rule HS-1)");
  }
  const number = /^\d{1,4}$/.test(value) ? Number(value) : NaN;
  if (!(number >= sheet.min_value && number <= sheet.max_value)) {
    problems.value = t("a value from {min} to {max} (rule HS-3)", { min: sheet.min_value, max: sheet.max_value });
  }
  if (Object.keys(problems).length) return { empty: false, problems, result: null, dealt };
  const result =
    from === SELF_DRAW
      ? { kind: "self_draw", winner: player(winner), value: number }
      : { kind: "discard", winner: player(winner), discarder: player(from), value: number };
  return { empty: false, problems, result, dealt };
}

// Whether the server's result is the row's (player ids compared as text, as the log's may be
// numbers or strings).
export function sameResult(stored, result) {
  if (!stored || !result) return false;
  const keys = new Set([...Object.keys(stored), ...Object.keys(result)]);
  return [...keys].every((key) => String(stored[key]) === String(result[key]));
}
