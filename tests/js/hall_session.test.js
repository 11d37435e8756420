// @ts-check
/// <reference types="node" />
// The hall's session clock (app/static/hall/session.js) under Node: the deadline most tables
// share, before the start, running, in overtime (rule CL-3), a break, and untimed play.
import assert from "node:assert/strict";
import { test } from "node:test";

import { largestDeadlineGroup, segmentName, sessionClock } from "../../app/static/hall/session.js";

const rounds = { segmentKinds: { "1": "half" }, groupedRounds: new Set([1]) };
const NOW = Date.parse("2026-06-01T10:00:00Z");
const at = (/** @type {number} */ minutes) => new Date(NOW + minutes * 60000).toISOString();

/** @param {object} extra */
function table(extra) {
  return {
    round: 1,
    segment: 1,
    group: "A",
    phase: "running",
    deadline: at(30),
    starts_at: at(-40),
    play_all: false,
    break_ends: null,
    hands_completed: 2,
    planned_hands: 8,
    ...extra,
  };
}

test("the session counts down to the deadline most tables share", () => {
  const tables = { 1: table({}), 2: table({}), 3: table({ deadline: at(40) }) }; // 3: an extension
  const clock = sessionClock(tables, NOW, rounds);
  assert.deepEqual(
    { label: clock.label, time: clock.time, note: clock.note, kind: clock.kind },
    { label: "Time left", time: "30:00", note: "Half 1 · group A · 6/24 hands", kind: "running" },
  );
  assert.equal(sessionClock(tables, Date.parse(at(26)), rounds).kind, "closing");
});

test("before the start, past the deadline, and in a break", () => {
  const waiting = sessionClock({ 1: table({ starts_at: at(3) }) }, NOW, rounds);
  assert.deepEqual([waiting.label, waiting.time], ["Starts in", "3:00"]);
  const late = sessionClock({ 1: table({ phase: "overtime" }), 2: table({ phase: "finished" }) }, Date.parse(at(31)), rounds);
  assert.deepEqual([late.label, late.time, late.note], ["Overtime", "+1:00", "1 table finishing a hand · 4/16 hands"]);
  const resting = sessionClock({ 1: table({ phase: "break", break_ends: at(10) }) }, NOW, rounds);
  assert.deepEqual([resting.label, resting.time], ["Break", "10:00"]);
});

test("untimed play, and a hall with no table yet", () => {
  const untimed = sessionClock({ 1: table({ deadline: null }) }, NOW, rounds);
  assert.deepEqual([untimed.time, untimed.kind], ["No limit", "untimed"]);
  assert.equal(sessionClock({}, NOW, rounds).kind, "idle");
});

test("the group is named only in a round played in groups, when the tables share it", () => {
  assert.equal(segmentName([table({}), table({})], rounds), "Half 1 · group A");
  assert.equal(segmentName([table({}), table({ group: "B" })], rounds), "Half 1");
  assert.equal(segmentName([table({})], { ...rounds, groupedRounds: new Set() }), "Half 1");
});

test("deadlines less than 30 s apart are one clock", () => {
  const rows = [table({ deadline: at(30) }), table({ deadline: at(30.2) }), table({ deadline: at(45) })];
  assert.equal(largestDeadlineGroup(rows).length, 2);
});
