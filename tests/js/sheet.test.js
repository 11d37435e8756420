// @ts-check
/// <reference types="node" />
// A paper score sheet's rows under Node (app/static/judge/sheet.js): a sheet's code from what
// a QR reader types, each row's hand as the log writes it, the problems marked as typed with
// their rules, and the deal's time a timed segment needs (rule CL-3).
import assert from "node:assert/strict";
import { test } from "node:test";

import { dealtAt, readRow, sameResult, sheetCode } from "../../app/static/judge/sheet.js";

const START = "2026-11-29T09:00:00Z";
const hands = (n, extra = {}) => Array.from({ length: n }, (_, i) => ({ hand: i + 1, dealt: null, stored: null, ...extra }));
const SHEET = {
  min_value: 5,
  max_value: 320,
  timed: false,
  scheduled_start: null,
  deadline: null,
  players: ["ami", "bo", "cleo", "dirk"].map((player, i) => ({ column: i + 1, player })),
  hands: hands(8),
};
const TIMED = { ...SHEET, timed: true, scheduled_start: START, deadline: "2026-11-29T10:10:00Z" };
const row = (winner = "", from = "", value = "", dealt = "") => ({ winner, from, value, dealt });

test("a sheet's code is read from the code or from its QR code's address", () => {
  assert.deepEqual(sheetCode("2-1-14"), { round: 2, segment: 1, table: 14 });
  assert.deepEqual(sheetCode(" http://10.0.0.5:8000/scorer/1?sheet=2-1-14 "), { round: 2, segment: 1, table: 14 });
  assert.equal(sheetCode("2-1"), null);
  assert.equal(sheetCode("2-1-x"), null);
  assert.equal(sheetCode("http://10.0.0.5:8000/scorer/1"), null);
});

test("a row is the hand the log writes: a discard, a self-draw, a draw", () => {
  assert.deepEqual(readRow(row("1", "2", "30"), SHEET, 0).result, {
    kind: "discard",
    winner: "ami",
    discarder: "bo",
    value: 30,
  });
  assert.deepEqual(readRow(row("3", "s", "8"), SHEET, 0).result, { kind: "self_draw", winner: "cleo", value: 8 });
  assert.deepEqual(readRow(row("d"), SHEET, 0).result, { kind: "draw" });
  assert.equal(readRow(row(), SHEET, 0).empty, true);
});

test("each field's problem names its rule (HS-1, HS-3)", () => {
  /** @type {[{ winner: string, from: string, value: string, dealt: string }, string, string][]} */
  const cases = [
    [row("5", "2", "30"), "winner", "HS-1"],
    [row("1", "1", "30"), "from", "HS-1"],
    [row("1", "x", "30"), "from", "HS-1"],
    [row("1", "2", "4"), "value", "HS-3"],
    [row("1", "2", "321"), "value", "HS-3"],
    [row("1", "2", "3.5"), "value", "HS-3"],
    [row("d", "2"), "from", "HS-1"],
    [row("d", "", "10"), "value", "HS-1"],
  ];
  for (const [typed, field, rule] of cases) {
    const read = readRow(typed, SHEET, 0);
    assert.equal(read.result, null, JSON.stringify(typed));
    assert.match(read.problems[field], new RegExp(`rule ${rule}`), JSON.stringify(typed));
  }
});

test("a timed segment's row needs its deal's time, by the deadline (rule CL-3)", () => {
  assert.match(readRow(row("1", "2", "30"), TIMED, 0).problems.dealt, /rule CL-3/);
  assert.match(readRow(row("1", "2", "30", "25:00"), TIMED, 0).problems.dealt, /rule CL-3/);
  const late = dealtAt("10:11", START);
  assert.ok(late && Date.parse(late) > Date.parse(TIMED.deadline));
  assert.match(readRow(row("1", "2", "30", "10:11"), TIMED, 0).problems.dealt ?? "", /rule CL-3/);
  const read = readRow(row("d", "", "", "0905"), TIMED, 0);
  assert.deepEqual(read.problems, {});
  assert.equal(read.dealt, dealtAt("09:05", START));
  // a deal the server holds already, or a hand stored, needs none
  const dealt = { ...TIMED, hands: hands(8, { dealt: "2026-11-29T09:04:00Z" }) };
  assert.deepEqual(readRow(row("d"), dealt, 0).problems, {});
  assert.equal(readRow(row("d"), dealt, 0).dealt, null);
});

test("a time of day is the moment nearest the segment's start, on this machine's clock", () => {
  const at = dealtAt("9:05", START);
  assert.ok(at);
  const moment = new Date(at);
  assert.equal(moment.getHours(), 9);
  assert.equal(moment.getMinutes(), 5);
  assert.ok(Math.abs(moment.getTime() - Date.parse(START)) <= 12 * 3600 * 1000 + 3600 * 1000);
  assert.equal(dealtAt("9", START), null);
  assert.equal(dealtAt("09:60", START), null);
});

test("a stored result is the row's whatever the type of the player ids", () => {
  assert.ok(sameResult({ kind: "self_draw", winner: 7, value: 8 }, { kind: "self_draw", winner: "7", value: 8 }));
  assert.ok(!sameResult({ kind: "self_draw", winner: 7, value: 8 }, { kind: "self_draw", winner: 7, value: 9 }));
  assert.ok(!sameResult(null, { kind: "draw" }));
});
