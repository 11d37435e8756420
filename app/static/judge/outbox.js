// @ts-check
// The judge's tablet, its outbox and its sync (issue 15): every hand, correction, void, deal,
// seating and early start is kept first in IndexedDB under a key made here that is also the
// Idempotency-Key, then sent in order until the server settles it (CONTRACT §3): a retry carries
// the same key, so it doubles nothing; a refused entry stops the ones after it. No DOM here:
// tests/js/outbox.test.js runs it under Node with a store in memory and a fake server.

import { t } from "../i18n.js";

export const RETRY_EVERY_MS = 5000; // besides the browser's `online` event
// The longest a server's (or a proxy's) Retry-After holds an entry back: a hand must not
// wait out a value meant for a crawler.
export const MAX_RETRY_AFTER_S = 300;
export const IN_PROGRESS_RETRY_MS = 1000; // the server said "retry in a moment"
export const REQUEST_TIMEOUT_MS = 10000; // a request that hangs is abandoned and sent again later
export const KEEP_SENT = 60; // sent entries kept on the tablet, as a record
export const TIMED_ENDPOINTS = new Set(["deals", "early-starts"]); // they carry the tablet's time

/**
 * The seconds of a Retry-After header (RFC 9110: seconds, or an HTTP date), at least 1 and
 * at most MAX_RETRY_AFTER_S; null when there is none or it cannot be read.
 * @param {Response} response
 * @returns {number | null}
 */
export function retryAfter(response) {
  const text = response.headers.get("Retry-After")?.trim();
  if (!text) return null;
  const seconds = /^\d+$/.test(text) ? Number(text) : (Date.parse(text) - Date.now()) / 1000;
  if (!Number.isFinite(seconds)) return null;
  return Math.min(MAX_RETRY_AFTER_S, Math.max(1, Math.ceil(seconds)));
}

export function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  // Outside a secure context (plain http on a LAN address) randomUUID is missing.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function isoTime(ms) {
  return new Date(ms).toISOString();
}

// -- the outbox: IndexedDB, one record per hand, correction, void, deal, seating, early start -

export class Outbox {
  constructor(name = "scoreboard-judge") {
    this.name = name;
    this.db = null;
  }

  open() {
    return new Promise((resolve, reject) => {
      const request = indexedDB.open(this.name, 1);
      request.onupgradeneeded = () => request.result.createObjectStore("outbox", { keyPath: "key" });
      request.onsuccess = () => {
        this.db = request.result;
        resolve(this);
      };
      request.onerror = () => reject(request.error);
    });
  }

  run(mode, work) {
    return new Promise((resolve, reject) => {
      const transaction = this.db.transaction("outbox", mode);
      const request = work(transaction.objectStore("outbox"));
      transaction.oncomplete = () => resolve(request?.result);
      transaction.onerror = () => reject(transaction.error);
      transaction.onabort = () => reject(transaction.error);
    });
  }

  async all() {
    const entries = await this.run("readonly", (store) => store.getAll());
    return entries.sort((a, b) => a.created - b.created || a.order - b.order);
  }

  put(entry) {
    return this.run("readwrite", (store) => store.put(entry));
  }

  remove(key) {
    return this.run("readwrite", (store) => store.delete(key));
  }
}

// -- sending: in order, each entry until the server settles it ---------------------------------

/**
 * @typedef {object} Entry one record of the outbox
 * @property {string} key also the Idempotency-Key
 * @property {string} endpoint hands, corrections, voids, deals, seats, early-starts
 * @property {number} tournament
 * @property {any} body
 * @property {string} status queued, sent or refused
 * @property {number} created orders the outbox, with `order`
 * @property {number} order
 * @property {number} attempts
 * @property {string | null} lastError
 * @property {string} time this tablet's time of the entry
 * @property {number} offsetMs the clock correction it was stamped with
 * @property {number} page the page's time origin when it was made
 * @property {number} mono the page's monotonic clock when it was made
 * @property {any} [answer] the server's answer, once sent
 * @property {number} [sentAt]
 * @property {string | null} [error] the server's refusal
 * @property {string | null} [rule]
 * @property {string | null} [field]
 * @property {number | null} [code] the refusal's HTTP status: 409 a move forbidden, 422 malformed
 * @property {number} [refusedAt]
 * @property {string | null} [startsAtThen] the clock's start when it was refused
 * @property {boolean} [auto] a deal recorded as the entry of its hand began
 * @property {boolean} [redealt] a deal recorded anew after a refusal
 */

/**
 * @typedef {object} Store where the entries are kept: the IndexedDB `Outbox`, or one in memory
 * @property {() => Promise<Entry[]>} all oldest first
 * @property {(entry: Entry) => Promise<unknown>} put
 * @property {(key: string) => Promise<unknown>} remove
 */

/**
 * @typedef {object} SyncHooks what the sync needs from the page
 * @property {(path: string, body: any, headers: Record<string, string>) => Promise<Response>} post
 * @property {{ now(): number, offsetMs: number }} clock the tablet's corrected clock
 * @property {() => void} [onChange] the entries changed: draw them
 * @property {(entry: Entry) => void} [onSettled] the server sent or refused an entry
 * @property {(segment: number) => string | null} [startsAtOf] the segment's start as shown
 * @property {() => boolean} [isOnline] whether the device has a network at all
 * @property {(run: () => void, ms: number) => unknown} [later] a timer (setTimeout)
 */

export class OutboxSync {
  /**
   * @param {Store} store
   * @param {SyncHooks} hooks
   */
  constructor(store, hooks) {
    this.store = store;
    this.hooks = hooks;
    /** @type {Entry[]} */
    this.entries = []; // oldest first
    this.flushing = false;
    this.flushAgain = false;
    /** @type {string | null} */
    this.tokenProblem = null; // the server's word on this tablet's token, while it refuses it
    // the proxy's word while this address takes no hands (421: the public's entry, where the
    // staff have their own; issue 32): the hands wait here, never marked refused
    this.addressProblem = null;
    this.lastCreated = 0;
  }

  async load() {
    this.entries = await this.store.all();
  }

  changed() {
    this.hooks.onChange?.();
  }

  online() {
    return this.hooks.isOnline ? this.hooks.isOnline() : true;
  }

  /**
   * @param {() => void} run
   * @param {number} ms
   */
  later(run, ms) {
    (this.hooks.later ?? setTimeout)(run, ms);
  }

  // Keeps one entry in the outbox (on the tablet before anything goes out), then sends.
  // A deal or an early start gets this tablet's time of it, and the clock correction used,
  // so that its `sent` is read on the same corrected clock (rule CL-6).
  async queue(tournament, endpoint, body, extra = {}) {
    const now = this.hooks.clock.now();
    // `created` orders the outbox: it must never run backwards, even if the clock is set back
    this.lastCreated = Math.max(Date.now(), this.lastCreated + 1, ...this.entries.map((e) => e.created + 1));
    /** @type {Entry} */
    const entry = {
      key: newKey(), // also the Idempotency-Key: made once, here, before the first try
      endpoint,
      tournament,
      body: TIMED_ENDPOINTS.has(endpoint) ? { ...body, time: isoTime(now) } : body,
      status: "queued",
      created: this.lastCreated,
      order: this.entries.length,
      attempts: 0,
      lastError: null,
      time: isoTime(now), // this tablet's time of the entry, shown in the outbox
      offsetMs: this.hooks.clock.offsetMs,
      // the page's monotonic clock at that moment: a `sent` measured from it is immune to
      // the tablet's clock being set (by hand, or by the system) between then and sending
      page: performance.timeOrigin,
      mono: performance.now(),
      ...extra,
    };
    await this.store.put(entry);
    this.entries.push(entry);
    this.entries.sort((a, b) => a.created - b.created || a.order - b.order);
    this.changed();
    this.flush();
    return entry;
  }

  async flush() {
    if (this.flushing) {
      this.flushAgain = true;
      return;
    }
    this.flushing = true;
    try {
      do {
        this.flushAgain = false;
        this.entries = await this.store.all();
        for (const entry of this.entries) {
          if (entry.status === "sent") continue;
          // A refused entry stops the ones after it until the judge decides (the hand after
          // a refused deal would be refused too): they wait here, nothing is lost.
          if (entry.status === "refused") break;
          // Stop at the first entry still waiting: the next hand depends on this one.
          if (!(await this.send(entry)) || entry.status === "refused") break;
        }
      } while (this.flushAgain);
      await this.prune();
    } finally {
      this.flushing = false;
      this.changed();
    }
  }

  // Sends one entry; true if the server settled it (sent or refused), false to try later.
  async send(entry) {
    let response;
    entry.attempts += 1;
    // A deal or an early start says this tablet's clock as it sends it, corrected as its
    // time was: the server checks the correction against its own clock (rule CL-6).
    const body = TIMED_ENDPOINTS.has(entry.endpoint) ? { ...entry.body, sent: isoTime(this.sentTime(entry)) } : entry.body;
    try {
      response = await this.hooks.post(`/api/tournaments/${entry.tournament}/${entry.endpoint}`, body, {
        "Idempotency-Key": entry.key,
      });
    } catch {
      entry.lastError = this.online() ? t("the server does not answer") : t("no network");
      await this.store.put(entry);
      return false;
    }
    const answer = await response.json().catch(() => null);
    let settled = true;
    if (response.ok) {
      entry.status = "sent";
      entry.answer = answer;
      entry.sentAt = Date.now();
      entry.lastError = null;
      this.tokenProblem = null;
      this.addressProblem = null;
    } else if (response.status === 409 && answer?.field === "Idempotency-Key") {
      entry.lastError = t("the server is still entering it"); // the first try is in progress
      settled = false;
      this.later(() => this.flush(), IN_PROGRESS_RETRY_MS);
    } else if (response.status === 401) {
      this.tokenProblem = answer?.detail ?? "401";
      entry.lastError = t("token not accepted");
      settled = false;
    } else if (response.status === 429 || response.status === 503) {
      // Over a rate limit (429, issue 14) or busy for a moment (503, the database's write
      // lock): not a refusal of the entry, and nothing was entered. Sent again when the
      // server says, often sooner than the regular retry; the entries behind it wait, in order.
      const seconds = retryAfter(response) ?? RETRY_EVERY_MS / 1000;
      entry.lastError =
        response.status === 429
          ? t("the server asks to wait {seconds} s", { seconds })
          : t("the server is busy (HTTP 503); sent again in {seconds} s", { seconds });
      settled = false;
      this.later(() => this.flush(), seconds * 1000);
    } else if (response.status === 421) {
      // Not a refusal of the hand: this address serves the public, and the staff's address
      // takes the judges' hands (the answer names it). Nothing was entered; it waits here.
      this.addressProblem = answer?.detail ?? "421";
      entry.lastError = t("this address does not take hands (HTTP 421)");
      settled = false;
    } else if (response.status === 408) {
      // The body did not reach the server in time (a Wi-Fi that stalled mid-send): nothing
      // was entered, and the regular retry sends it again. Not a refusal (issue 32).
      entry.lastError = t("it did not reach the server whole (HTTP 408); sent again");
      settled = false;
    } else if (response.status >= 400 && response.status < 500) {
      entry.status = "refused";
      entry.error = answer?.detail ?? t("the server refused it (HTTP {status})", { status: response.status });
      entry.rule = answer?.rule ?? null;
      entry.field = answer?.field ?? null;
      entry.code = response.status;
      entry.refusedAt = Date.now();
      entry.startsAtThen = this.hooks.startsAtOf?.(entry.body.segment) ?? null;
    } else {
      entry.lastError = t("server error (HTTP {status})", { status: response.status });
      settled = false;
    }
    await this.store.put(entry);
    if (settled) this.hooks.onSettled?.(entry);
    return settled;
  }

  // This tablet's clock now, read as the entry's time was: its time plus the time since, by
  // the page's monotonic clock while the page has not been reloaded, else the clock with the
  // correction the entry was stamped with. Either way an error in the entry's time is in
  // `sent` too, and the server sees it against its own clock (rule CL-6).
  sentTime(entry) {
    if (entry.page === performance.timeOrigin && Number.isFinite(entry.mono)) {
      return Date.parse(entry.body.time ?? entry.time) + (performance.now() - entry.mono);
    }
    return Date.now() + (entry.offsetMs ?? this.hooks.clock.offsetMs);
  }

  async prune() {
    const sent = this.entries.filter((e) => e.status === "sent");
    for (const entry of sent.slice(0, Math.max(0, sent.length - KEEP_SENT))) {
      await this.store.remove(entry.key);
    }
    this.entries = await this.store.all();
  }

  async retry(entry) {
    entry.status = "queued";
    entry.error = null;
    entry.rule = null;
    entry.field = null;
    entry.code = null;
    await this.store.put(entry);
    this.changed();
    this.flush();
  }
}
