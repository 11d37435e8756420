// @ts-check
/// <reference types="node" />
// The live feed's reconnect delays (app/static/live.js, issue 16): a hall's phones, dropped
// at once, come back spread over seconds, each later try in a wider window, never past the cap.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  RETRY_FIRST_MS,
  RETRY_MAX_MS,
  RETRY_SPREAD_MS,
  backOnlineDelay,
  retryDelay,
} from "../../app/static/live.js";

/** A seeded generator, so that a failure shows again (mulberry32). */
function seeded(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test("the first try after a drop falls between the least wait and its spread", () => {
  assert.equal(retryDelay(0, () => 0), RETRY_FIRST_MS);
  assert.equal(retryDelay(0, () => 0.999999), RETRY_FIRST_MS + RETRY_SPREAD_MS);
});

test("each later window is twice as wide, up to the cap", () => {
  const widest = [0, 1, 2, 3, 4, 10, 60].map((attempt) => retryDelay(attempt, () => 0.999999));
  assert.deepEqual(widest, [3000, 6000, 12000, 24000, RETRY_MAX_MS, RETRY_MAX_MS, RETRY_MAX_MS]);
  for (const attempt of [0, 5, 60]) assert.equal(retryDelay(attempt, () => 0), RETRY_FIRST_MS);
});

test("5,000 phones dropped at once do not come back in the same second", () => {
  const random = seeded(16);
  const perSecond = new Map();
  for (let phone = 0; phone < 5000; phone += 1) {
    const second = Math.floor(retryDelay(0, random) / 1000);
    perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
  }
  // spread over 0.5 s to 3 s: no second holds more than half of them
  assert.ok(Math.max(...perSecond.values()) < 2500, JSON.stringify([...perSecond]));
  assert.ok([...perSecond.keys()].every((second) => second >= 0 && second <= 3));
  assert.ok(perSecond.size >= 3);
});

test("back online, every phone tries within the spread, not at one moment", () => {
  const random = seeded(17);
  const delays = Array.from({ length: 1000 }, () => backOnlineDelay(random));
  assert.ok(Math.min(...delays) >= 0 && Math.max(...delays) <= RETRY_SPREAD_MS);
  assert.ok(new Set(delays.map((ms) => Math.floor(ms / 500))).size >= 5);
});
