// @ts-check
/// <reference types="node" />
// The tablet's outbox and its sync (app/static/judge/outbox.js) under Node: entries go out in
// the order they were made, each under its own Idempotency-Key, the same key on every retry
// (CONTRACT §3); a refused entry stops the ones after it; a server busy with the first try,
// or over a rate limit, is asked again later without the entries behind it overtaking.
import assert from "node:assert/strict";
import { test } from "node:test";

import { KEEP_SENT, MAX_RETRY_AFTER_S, OutboxSync, RETRY_EVERY_MS } from "../../app/static/judge/outbox.js";

/** IndexedDB's outbox in memory: it keeps copies, as IndexedDB does. */
class MemoryStore {
  constructor() {
    /** @type {Map<string, any>} */
    this.records = new Map();
  }
  async all() {
    return [...this.records.values()]
      .map((entry) => structuredClone(entry))
      .sort((a, b) => a.created - b.created || a.order - b.order);
  }
  /** @param {any} entry */
  async put(entry) {
    this.records.set(entry.key, structuredClone(entry));
  }
  /** @param {string} key */
  async remove(key) {
    this.records.delete(key);
  }
}

/**
 * @typedef {{ status: number, body: any, headers?: Record<string, string> }} Answer
 * A server that answers each POST with what `answer` says, and remembers every call.
 * @param {(call: { path: string, body: any, calls: any[] }) => Answer} answer
 */
function fakeServer(answer = () => ({ status: 201, body: { version: 1 } })) {
  /** @type {{ path: string, body: any, key: string }[]} */
  const calls = [];
  /** @type {"up" | "down"} */
  let network = "up";
  return {
    calls,
    /** @param {"up" | "down"} state */
    set(state) {
      network = state;
    },
    /**
     * @param {string} path
     * @param {any} body
     * @param {Record<string, string>} headers
     */
    async post(path, body, headers) {
      if (network === "down") throw new TypeError("Failed to fetch");
      calls.push({ path, body, key: headers["Idempotency-Key"] });
      const { status, body: reply, headers: replyHeaders = {} } = answer({ path, body, calls });
      return new Response(JSON.stringify(reply), { status, headers: replyHeaders });
    },
  };
}

/** @param {ReturnType<typeof fakeServer>} server */
function syncTo(server, extra = {}) {
  /** @type {{ run: () => void, ms: number }[]} */
  const timers = [];
  const sync = new OutboxSync(new MemoryStore(), {
    post: (path, body, headers) => server.post(path, body, headers),
    clock: { now: () => Date.now(), offsetMs: 0 },
    later: (run, ms) => timers.push({ run, ms }),
    ...extra,
  });
  return { sync, timers };
}

// `queue` starts a flush of its own, as the page's does: wait for the outbox to be still.
/** @param {OutboxSync} sync */
async function flushed(sync) {
  await sync.flush();
  while (sync.flushing) await new Promise((resolve) => setTimeout(resolve, 1));
}

const hand = (/** @type {number} */ number) => ({
  round: 1,
  segment: 1,
  table: 3,
  hand: number,
  result: { kind: "draw" },
});

test("entries made offline wait, in order, and go out in that order under their own keys", async () => {
  const server = fakeServer();
  const { sync } = syncTo(server);
  server.set("down");
  const made = [];
  for (const number of [1, 2, 3]) made.push(await sync.queue(7, "hands", hand(number)));
  await flushed(sync);
  assert.deepEqual(
    sync.entries.map((e) => [e.body.hand, e.status]),
    [
      [1, "queued"],
      [2, "queued"],
      [3, "queued"],
    ],
  );
  // Only the first is tried while the network is down: the next hand depends on it.
  assert.ok(sync.entries[0].attempts >= 1);
  assert.deepEqual(
    sync.entries.slice(1).map((e) => e.attempts),
    [0, 0],
  );
  assert.equal(sync.entries[0].lastError, "the server does not answer");

  server.set("up");
  await flushed(sync);
  assert.deepEqual(
    server.calls.map((c) => [c.path, c.body.hand]),
    [
      ["/api/tournaments/7/hands", 1],
      ["/api/tournaments/7/hands", 2],
      ["/api/tournaments/7/hands", 3],
    ],
  );
  assert.deepEqual(
    server.calls.map((c) => c.key),
    made.map((e) => e.key),
  );
  assert.equal(new Set(made.map((e) => e.key)).size, 3);
  assert.deepEqual(
    sync.entries.map((e) => e.status),
    ["sent", "sent", "sent"],
  );
});

test("a retry after a lost answer carries the same Idempotency-Key", async () => {
  let lose = true;
  const server = fakeServer(() => {
    if (lose) {
      lose = false;
      return { status: 500, body: { detail: "boom" } };
    }
    return { status: 201, body: { version: 2 } };
  });
  const { sync } = syncTo(server);
  const entry = await sync.queue(7, "hands", hand(1));
  await flushed(sync);
  assert.equal(sync.entries[0].status, "sent");
  assert.deepEqual(
    server.calls.map((c) => c.key),
    [entry.key, entry.key],
  );
  assert.equal(sync.entries[0].attempts, 2);
});

test("a refused entry stops the ones after it until it is sent again", async () => {
  let refuse = true;
  const server = fakeServer(({ body }) =>
    body.hand === 2 && refuse
      ? { status: 422, body: { detail: "hand 2 is already entered", rule: "HS-1", field: "hand" } }
      : { status: 201, body: { version: 3 } },
  );
  const { sync } = syncTo(server, { startsAtOf: () => "2026-06-01T10:00:00Z" });
  for (const number of [1, 2, 3]) await sync.queue(7, "hands", hand(number));
  await flushed(sync);
  assert.deepEqual(
    sync.entries.map((e) => e.status),
    ["sent", "refused", "queued"],
  );
  const refused = sync.entries[1];
  assert.equal(refused.error, "hand 2 is already entered");
  assert.equal(refused.rule, "HS-1");
  assert.equal(refused.startsAtThen, "2026-06-01T10:00:00Z");
  assert.deepEqual(
    server.calls.map((c) => c.body.hand),
    [1, 2],
  );

  await flushed(sync); // nothing moves while it stands
  assert.equal(server.calls.length, 2);

  refuse = false;
  await sync.retry(refused);
  await flushed(sync);
  assert.deepEqual(
    sync.entries.map((e) => e.status),
    ["sent", "sent", "sent"],
  );
  assert.deepEqual(
    server.calls.map((c) => c.body.hand),
    [1, 2, 2, 3],
  );
  assert.equal(server.calls[1].key, server.calls[2].key);
});

/**
 * A server that answers `answers` in turn, and a sync whose `hands` were queued while it was
 * down: queued without a try of their own, so that each flush after is one try.
 * @param {Answer[]} answers
 * @param {number[]} hands
 */
async function queuedWhileDown(answers, hands) {
  const server = fakeServer(() => answers.shift() ?? { status: 201, body: {} });
  const { sync, timers } = syncTo(server);
  server.set("down");
  for (const number of hands) await sync.queue(7, "hands", hand(number));
  await flushed(sync);
  server.set("up");
  return { server, sync, timers };
}

test("a server still entering the first try, or over a rate limit, is asked again later", async () => {
  /** @type {Answer[]} */
  const answers = [
    { status: 409, body: { field: "Idempotency-Key", detail: "in progress" } },
    { status: 429, body: { detail: "slow down" }, headers: { "Retry-After": "3" } },
    { status: 201, body: { version: 4 } },
    { status: 201, body: { version: 5 } },
  ];
  const { server, sync, timers } = await queuedWhileDown(answers, [1, 2]);
  await flushed(sync);
  assert.equal(sync.entries[0].status, "queued");
  assert.equal(sync.entries[0].lastError, "the server is still entering it");
  assert.deepEqual(
    timers.map((t) => t.ms),
    [1000],
  );
  await flushed(sync);
  assert.equal(sync.entries[0].lastError, "the server asks to wait 3 s");
  assert.deepEqual(
    timers.map((t) => t.ms),
    [1000, 3000],
  );
  // Hand 2 never went before hand 1.
  assert.deepEqual(
    server.calls.map((c) => c.body.hand),
    [1, 1],
  );
  await flushed(sync);
  assert.deepEqual(
    server.calls.map((c) => c.body.hand),
    [1, 1, 1, 2],
  );
});

test("a busy server's Retry-After is kept to; without one, the next regular try", async () => {
  // 503 Busy for a moment (the database lock, issue 14) says when to come back: sooner
  // than the tablet's own RETRY_EVERY_MS. A proxy's huge or malformed value is bounded.
  /** @type {Answer[]} */
  const answers = [
    { status: 503, body: { detail: "busy" }, headers: { "Retry-After": "1" } },
    { status: 503, body: { detail: "busy" }, headers: { "Retry-After": "86400" } },
    { status: 503, body: { detail: "busy" }, headers: { "Retry-After": "soon" } },
    { status: 500, body: { detail: "oops" } },
    { status: 201, body: { version: 4 } },
  ];
  const { sync, timers } = await queuedWhileDown(answers, [1]);
  await flushed(sync);
  assert.equal(sync.entries[0].status, "queued");
  assert.equal(sync.entries[0].lastError, "the server is busy (HTTP 503); sent again in 1 s");
  await flushed(sync);
  assert.equal(sync.entries[0].lastError, `the server is busy (HTTP 503); sent again in ${MAX_RETRY_AFTER_S} s`);
  await flushed(sync);
  await flushed(sync);
  assert.equal(sync.entries[0].lastError, "server error (HTTP 500)");
  // 1 s as asked, the bound for a day, the regular interval for a value it cannot read,
  // and nothing extra for a 500 (the regular retry sends it again)
  assert.deepEqual(
    timers.map((t) => t.ms),
    [1000, MAX_RETRY_AFTER_S * 1000, RETRY_EVERY_MS],
  );
  await flushed(sync);
  assert.equal(sync.entries[0].status, "sent");
});

test("a body that did not reach the server in time (408) is sent again, not refused", async () => {
  // The server answers 408 when a request's body stops coming (SCOREBOARD_BODY_TIMEOUT,
  // issue 32): on a Wi-Fi that stalled mid-send, nothing was entered.
  /** @type {Answer[]} */
  const answers = [
    { status: 408, body: { detail: "the request's body did not come in time" } },
    { status: 201, body: { version: 4 } },
  ];
  const { sync, timers } = await queuedWhileDown(answers, [1]);
  await flushed(sync);
  assert.equal(sync.entries[0].status, "queued");
  assert.equal(sync.entries[0].lastError, "it did not reach the server whole (HTTP 408); sent again");
  assert.deepEqual(timers, []); // nothing extra: the regular retry sends it again
  await flushed(sync);
  assert.equal(sync.entries[0].status, "sent");
});

test("a hand sent to the public's entry (421) waits, and is not refused", async () => {
  // Where the staff have an entry of their own, the public's answers every judge's request
  // 421 and names the staff's address (deploy/Caddyfile, issue 32): nothing was entered.
  /** @type {Answer[]} */
  const answers = [
    { status: 421, body: { detail: "judges ... use the staff's address https://10.0.20.1", field: "path" } },
    { status: 201, body: { version: 4 } },
  ];
  const { sync, timers } = await queuedWhileDown(answers, [1]);
  await flushed(sync);
  assert.equal(sync.entries[0].status, "queued");
  assert.equal(sync.entries[0].lastError, "this address does not take hands (HTTP 421)");
  assert.equal(sync.addressProblem, "judges ... use the staff's address https://10.0.20.1");
  assert.deepEqual(timers, []);
  await flushed(sync);
  assert.equal(sync.entries[0].status, "sent");
  assert.equal(sync.addressProblem, null);
});

test("a token the server refuses is not a refusal of the entry", async () => {
  const server = fakeServer(() => ({ status: 401, body: { detail: "this token was revoked" } }));
  const { sync } = syncTo(server);
  await sync.queue(7, "hands", hand(1));
  await flushed(sync);
  assert.equal(sync.entries[0].status, "queued");
  assert.equal(sync.tokenProblem, "this token was revoked");
});

test("the outbox keeps its order when the tablet's clock is set back", async (t) => {
  const server = fakeServer();
  server.set("down");
  const { sync } = syncTo(server);
  let now = Date.parse("2026-06-01T10:00:00Z");
  t.mock.method(Date, "now", () => now);
  const first = await sync.queue(7, "hands", hand(1));
  now -= 3_600_000; // an hour back
  const second = await sync.queue(7, "hands", hand(2));
  assert.ok(second.created > first.created);
  assert.deepEqual(
    (await sync.store.all()).map((e) => e.body.hand),
    [1, 2],
  );
});

test("a deal carries the tablet's time of it, and its clock when sent", async () => {
  const server = fakeServer();
  const { sync } = syncTo(server);
  const deal = await sync.queue(7, "deals", { round: 1, segment: 1, table: 3, hand: 1 });
  await flushed(sync);
  assert.equal(deal.body.time, deal.time);
  const sent = server.calls[0].body;
  assert.equal(sent.time, deal.time);
  assert.ok(Math.abs(Date.parse(sent.sent) - Date.parse(deal.time)) < 5000);
  // A hand carries neither.
  await sync.queue(7, "hands", hand(1));
  await flushed(sync);
  assert.equal("sent" in server.calls[1].body, false);
});

test("a flush asked for while one runs sends what was queued meanwhile, once", async () => {
  const server = fakeServer();
  const { sync } = syncTo(server);
  await sync.queue(7, "hands", hand(1)); // its flush is running
  assert.equal(sync.flushing, true);
  await sync.queue(7, "hands", hand(2)); // asks for another while it runs
  await flushed(sync);
  assert.deepEqual(
    server.calls.map((c) => c.body.hand),
    [1, 2],
  );
});

test("only the last sent entries are kept on the tablet, as a record", async () => {
  const server = fakeServer();
  const { sync } = syncTo(server);
  for (let number = 1; number <= KEEP_SENT + 5; number++) await sync.queue(7, "hands", hand(number));
  await flushed(sync);
  const kept = await sync.store.all();
  assert.equal(kept.length, KEEP_SENT);
  assert.equal(kept[0].body.hand, 6);
});
