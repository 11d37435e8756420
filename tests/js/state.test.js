// @ts-check
/// <reference types="node" />
// The tablet's pure state (app/static/judge/state.js) under Node: the next hand and its dealer,
// the hands with the outbox laid over the server's, what the review shows, and the problems a
// judge sees before review.
import assert from "node:assert/strict";
import { test } from "node:test";

import { TabletState, handDeltas } from "../../app/static/judge/state.js";

const SEATS = [11, 12, 13, 14]; // east, south, west, north at the half's start

function whoami(extra = {}) {
  return {
    tournament: 7,
    tournament_name: "Test Open",
    table: 3,
    round: 1,
    segment_kind: "half",
    hands_per_segment: 8,
    min_value: 5,
    max_value: 320,
    early_start_minutes: 5,
    ruleset: "wsom",
    players: Object.fromEntries(SEATS.map((p) => [String(p), { name: `Player ${p}`, country: null }])),
    segments: [{ segment: 1, seats: SEATS, cycles: [SEATS, [14, 13, 12, 11]], hands_entered: [], next_hand: 1, closed: false }],
    ...extra,
  };
}

// No time limit unless a test gives one (rule CL-3a: no deal needed).
const UNTIMED = { phase: "running", deadline: null, starts_at: null, play_all: false };

/** @param {{ hand: number, deltas: Record<string, number> }[]} hands */
function channel(hands, clock = UNTIMED) {
  return {
    round: 1,
    segment: 1,
    seats: { east: 11, south: 12, west: 13, north: 14 },
    hands: hands.map((h) => ({ ...h, value: 8, dealer: null, result: { kind: "self_draw" } })),
    deals: [],
    clock,
  };
}

/** @param {any[]} entries */
function tablet(hands = [], entries = [], clock = UNTIMED) {
  const state = new TabletState();
  state.storage = null;
  state.who = whoami();
  state.table = channel(hands, clock);
  state.tableVersion = 10;
  state.entries = entries;
  return state;
}

let made = 0;
/** @param {string} endpoint @param {any} body */
function queued(endpoint, body, status = "queued") {
  made += 1;
  return { key: `k${made}`, endpoint, tournament: 7, status, created: made, order: made, body: { round: 1, segment: 1, table: 3, ...body } };
}

const even = { "11": 24, "12": -8, "13": -8, "14": -8 };

test("rule HS-2: a discard above 25 costs the discarder 3v - 50 and the others 25", () => {
  assert.deepEqual(handDeltas({ kind: "discard", winner: 11, discarder: 12, value: 40 }, SEATS), {
    "11": 120,
    "12": -70,
    "13": -25,
    "14": -25,
  });
  assert.deepEqual(handDeltas({ kind: "discard", winner: 11, discarder: 12, value: 20 }, SEATS), {
    "11": 60,
    "12": -20,
    "13": -20,
    "14": -20,
  });
  assert.equal(handDeltas({ kind: "self_draw", value: 8 }, SEATS), null); // no winner yet
});

test("the next hand follows the server's hands and the outbox's", () => {
  assert.equal(tablet().nextHand(1), 1);
  assert.equal(tablet([{ hand: 1, deltas: even }, { hand: 2, deltas: even }]).nextHand(1), 3);
  const more = tablet([{ hand: 1, deltas: even }], [queued("hands", { hand: 2, result: { kind: "draw" } })]);
  assert.equal(more.nextHand(1), 3);
  // A void of the last hand gives its number back, as the server counts.
  const voided = tablet([{ hand: 1, deltas: even }, { hand: 2, deltas: even }], [queued("voids", { hand: 2, reason: "x" })]);
  assert.equal(voided.nextHand(1), 2);
  // All hands in: none is next.
  const full = tablet(Array.from({ length: 8 }, (_, i) => ({ hand: i + 1, deltas: even })));
  assert.equal(full.nextHand(1), null);
});

test("a sent entry the channel has caught up with is the server's, not the outbox's", () => {
  const sent = { ...queued("hands", { hand: 2, result: { kind: "draw" } }, "sent"), answer: { version: 9 } };
  const state = tablet([{ hand: 1, deltas: even }], [sent]);
  assert.equal(state.nextHand(1), 2); // version 9 is in the channel's 10: hand 2 is not shown twice
  sent.answer.version = 11;
  assert.equal(state.nextHand(1), 3);
});

test("the rows lay the outbox over the server's hands, with running totals", () => {
  const state = tablet(
    [{ hand: 1, deltas: even }],
    [queued("hands", { hand: 2, result: { kind: "discard", winner: 12, discarder: 11, value: 30 } })],
  );
  const rows = state.rows(1);
  assert.deepEqual(
    rows.map((r) => [r.hand, r.state]),
    [
      [1, "server"],
      [2, "queued"],
    ],
  );
  assert.deepEqual(rows[1].deltas, { "11": -40, "12": 90, "13": -25, "14": -25 });
  assert.deepEqual(state.totals(1).totals, { "11": -16, "12": 82, "13": -33, "14": -33 });
});

test("a hand the server has is its row, even while this tablet's entry for it waits for its answer", () => {
  // The table's channel can bring the hand before the POST's answer does (on a loaded
  // server it did). The server's row is the truth then: an Ari Ari game's last hand carries
  // the game's bets and uma in its deltas, and the tablet's own figures for it do not, so
  // laying the entry over it showed a seat card its points less the bets and uma.
  const entered = { "11": -12, "12": 4, "13": 4, "14": 4 };
  const inFlight = queued("hands", { hand: 2, result: { kind: "discard", winner: 12, discarder: 11, value: 30 } });
  const state = tablet(
    [
      { hand: 1, deltas: even },
      { hand: 2, deltas: entered },
    ],
    [inFlight],
  );
  const rows = state.rows(1);
  assert.deepEqual(
    rows.map((r) => [r.hand, r.state]),
    [
      [1, "server"],
      [2, "server"],
    ],
  );
  assert.deepEqual(rows[1].deltas, entered);
  assert.deepEqual(state.totals(1).totals, { "11": 12, "12": -4, "13": -4, "14": -4 });
  // A correction or a void of a hand the server has is still laid over it, until it lands.
  const correcting = tablet([{ hand: 1, deltas: even }], [queued("voids", { hand: 1, reason: "x" })]);
  assert.equal(correcting.rows(1)[0].state, "void queued");
});

test("rule FM-7: the dealer turns with each hand, and the second cycle's seats are the server's", () => {
  const state = tablet();
  assert.deepEqual(
    [1, 2, 3, 4].map((h) => state.dealerOf(1, h)),
    [11, 12, 13, 14],
  );
  assert.deepEqual(
    [5, 6].map((h) => state.dealerOf(1, h)),
    [14, 13],
  );
  assert.equal(state.windOf(1, 5, 14), "E");
});

test("the problems that keep a hand from review, in the judge's words", () => {
  const state = tablet();
  assert.equal(state.draftResult().problem, "Pick the outcome.");
  state.draft = { ...state.emptyDraft(), kind: "self_draw" };
  assert.equal(state.draftResult().problem, "Tap the winner's seat.");
  state.draft.winner = 11;
  assert.equal(state.draftResult().problem, "Enter the hand's value.");
  state.draft.value = "400";
  assert.match(state.draftResult().problem, /worth 5 to 320 \(rule HS-3\)/);
  state.draft = { ...state.emptyDraft(), kind: "points", deltas: { "11": "10", "12": "-5" } };
  assert.match(state.draftResult().problem, /sum to 5; they must sum to 0 \(rule HS-7\)/);
  state.draft = { ...state.emptyDraft("correction", 1, 1), kind: "draw" };
  assert.equal(state.draftResult().problem, "Say why the hand is corrected.");
});

test("rule CL-3: in a timed half a new hand needs its deal first", () => {
  const future = new Date(Date.now() + 3_600_000).toISOString();
  const past = new Date(Date.now() - 60_000).toISOString();
  const clock = { phase: "running", deadline: future, starts_at: past, play_all: false };
  const state = tablet([], [], clock);
  state.draft = { ...state.emptyDraft(), kind: "draw" };
  assert.match(state.draftResult().problem, /Tap “Tiles dealt” for hand 1 first/);
  state.entries = [queued("deals", { hand: 1, time: new Date().toISOString() })];
  assert.deepEqual(state.draftResult(), { result: { kind: "draw" } });
});

test("the review shows the entry and its four point changes before anything is sent", () => {
  const state = tablet([{ hand: 1, deltas: even }]);
  state.draft = { ...state.emptyDraft(), kind: "discard", winner: 13, discarder: 14, value: "8" };
  const review = state.reviewOf();
  assert.ok(review);
  assert.equal(review.endpoint, "hands");
  assert.deepEqual(review.body, {
    round: 1,
    segment: 1,
    table: 3,
    hand: 2,
    result: { kind: "discard", winner: 13, value: 8, discarder: 14 },
  });
  assert.deepEqual(review.deltas, { "11": -8, "12": -8, "13": 24, "14": -8 });
  assert.equal(state.describe(review), "Half 1 hand 2: Discard 8: Player 13 from Player 14");
  state.draft = { ...state.emptyDraft(), kind: "discard", winner: 13 };
  assert.equal(state.reviewOf(), null); // no discarder yet
});
