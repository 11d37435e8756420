// @ts-check
// The live feed client every page uses (hall display, phones, judges' tablets, overlays).
//
// It keeps one state per channel: a snapshot replaces it, a change patches it, and every
// change must apply on top of the version held (its `since`); otherwise it asks for a fresh
// snapshot. It reconnects by itself, resuming from the versions it holds, and reports
// "live" / "stale" (no heartbeat for a while) / "offline" so a screen can say so.
// Times: the server is the only clock (rule CL-6); `serverNow()` is the page's estimate.

const KEYED = { standings: "rows", clocks: "tables", needs: "rows" };
const STALE_AFTER_MS = 12000; // more than two missed heartbeats (they come every 5 s)

// Reconnecting (issue 16): when the hall's Wi-Fi drops and comes back, every phone's feed
// closes at the same moment. Each waits a random time before it tries again, so thousands
// arrive over seconds, not in the same one: the first try between RETRY_FIRST_MS and
// RETRY_FIRST_MS + RETRY_SPREAD_MS, each later one in a window twice as wide (up to
// RETRY_MAX_MS), a new draw every time.
export const RETRY_FIRST_MS = 500;
export const RETRY_SPREAD_MS = 2500;
export const RETRY_MAX_MS = 30000;

/**
 * How long to wait before try number `attempt` (0: the first after the feed closed).
 * @param {number} attempt
 * @param {() => number} [random] uniform in [0, 1)
 */
export function retryDelay(attempt, random = Math.random) {
  const widest = Math.min(RETRY_MAX_MS, (RETRY_FIRST_MS + RETRY_SPREAD_MS) * 2 ** attempt);
  return Math.round(RETRY_FIRST_MS + random() * (widest - RETRY_FIRST_MS));
}

/**
 * When the browser says the network is back: soon, but not all at once (every phone in the
 * hall hears the same `online` event).
 * @param {() => number} [random] uniform in [0, 1)
 */
export function backOnlineDelay(random = Math.random) {
  return Math.round(random() * RETRY_SPREAD_MS);
}

export class LiveFeed {
  constructor(tournamentId, channels, handlers = {}) {
    this.tournamentId = tournamentId;
    this.channels = new Set(channels);
    this.handlers = handlers; // onState(channel, state, message), onStatus(status)
    this.states = new Map(); // channel -> state
    this.versions = new Map(); // channel -> version held
    this.version = null; // newest tournament version seen
    this.offsetMs = 0; // server time minus local time
    this.lastMessageAt = 0;
    this.status = "connecting";
    this.attempt = 0; // tries since the feed was last open (retryDelay)
    this.socket = null;
    this.closed = false;
    this.staleTimer = setInterval(() => this.checkStale(), 1000);
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    // Channels are named in the subscribe message, each with the version it holds.
    return `${scheme}//${location.host}/ws/tournaments/${this.tournamentId}?channels=`;
  }

  connect() {
    this.closed = false;
    const socket = new WebSocket(this.url());
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    socket.onopen = () => {
      this.attempt = 0;
      const wanted = {};
      for (const channel of this.channels) wanted[channel] = this.versions.get(channel) ?? null;
      socket.send(JSON.stringify({ type: "subscribe", channels: wanted }));
    };
    socket.onmessage = (event) => this.receive(event.data);
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.setStatus("offline");
      if (!this.closed) {
        this.retryTimer = setTimeout(() => this.connect(), retryDelay(this.attempt));
        this.attempt += 1;
      }
    };
    return this;
  }

  // The network is back (the browser's `online` event): connect within a few seconds, not
  // at the end of a back-off that may be 30 seconds away.
  reconnectNow() {
    const state = this.socket?.readyState;
    if (this.closed || state === WebSocket.OPEN || state === WebSocket.CONNECTING) return;
    clearTimeout(this.retryTimer);
    this.attempt = 0;
    this.retryTimer = setTimeout(() => this.connect(), backOnlineDelay());
  }

  close() {
    this.closed = true;
    clearInterval(this.staleTimer);
    if (this.socket) this.socket.close();
  }

  subscribe(channel) {
    this.channels.add(channel);
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(
        JSON.stringify({ type: "subscribe", channels: { [channel]: this.versions.get(channel) ?? null } }),
      );
    }
  }

  serverNow() {
    return Date.now() + this.offsetMs;
  }

  receive(data) {
    const text = typeof data === "string" ? data : new TextDecoder().decode(data);
    const message = JSON.parse(text);
    this.lastMessageAt = Date.now();
    // rule CL-6: learn the server's clock only from messages made as they are sent (the hello,
    // a snapshot, a heartbeat). A change may be an old frame from the feed's history, replayed
    // to a client that resumed: its server_time is when it was first sent, minutes ago perhaps.
    if (message.server_time && message.type !== "change") {
      const at = Date.parse(message.server_time);
      if (Number.isFinite(at)) this.offsetMs = at - Date.now();
    }
    if (typeof message.version === "number") this.version = Math.max(this.version ?? 0, message.version);
    if (message.type === "hello" || message.type === "heartbeat") {
      this.setStatus("live");
      this.handlers.onHeartbeat?.(message);
      return;
    }
    const channel = message.channel;
    if (!channel || !this.channels.has(channel)) return;
    if (message.type === "snapshot") {
      this.apply(channel, message.data, message);
    } else if (message.type === "change") {
      if (this.versions.get(channel) !== message.since) {
        // A gap: never show a state built on a version we do not hold.
        this.socket.send(JSON.stringify({ type: "resync", channels: [channel] }));
        return;
      }
      this.apply(channel, applyChange(channel, this.states.get(channel), message), message);
    }
    this.setStatus("live");
  }

  apply(channel, state, message) {
    this.states.set(channel, state);
    this.versions.set(channel, message.version);
    this.handlers.onState?.(channel, state, message);
  }

  checkStale() {
    if (this.status === "live" && Date.now() - this.lastMessageAt > STALE_AFTER_MS) {
      this.setStatus("stale");
    }
  }

  setStatus(status) {
    if (status === this.status) return;
    this.status = status;
    this.handlers.onStatus?.(status);
  }
}

// The state after a change (app/realtime/channels.py, apply_change, does the same):
// "replace" is the whole state; "patch" (clocks) carries the rows that changed; "moves"
// (standings) carries the rows whose values changed, the fields that changed, and moves:
// [player, position] pairs taken out of the held order and put back, positions ascending.
// Every other row keeps its place relative to the others; ranks follow the totals, and each
// row's side of the cut, distance and status follow from its place and the cut (placedRow).
export function applyChange(channel, held, message) {
  const data = message.data;
  if (message.mode === "replace") return data;
  const key = KEYED[channel.split(":")[0]];
  const rows = { ...(held?.[key] ?? {}) };
  for (const name of data.removed ?? []) delete rows[name];
  if (message.mode === "patch") {
    for (const [name, row] of Object.entries(data[key] ?? {})) rows[name] = row;
    const next = { ...data, [key]: rows };
    delete next.removed;
    return next;
  }
  const moved = new Set((data.moves ?? []).map(([name]) => name));
  const order = Object.keys(rows)
    .filter((name) => !moved.has(name))
    .sort((a, b) => rows[a].position - rows[b].position);
  for (const [name, row] of Object.entries(data[key] ?? {})) rows[name] = row;
  for (const [name, position] of data.moves ?? []) order.splice(position - 1, 0, name);
  const placed = {};
  let rank = 0;
  let previous = null;
  const next = { ...held, ...data };
  delete next.removed;
  delete next.moves;
  order.forEach((name, index) => {
    const row = rows[name];
    const position = index + 1;
    // rule ST-2: equal totals share a rank, and the next rank skips
    if (row.total !== previous) {
      rank = position;
      previous = row.total;
    }
    placed[name] = placedRow(row, rank, position, next.cut, next.ended);
  });
  next[key] = placed;
  return next;
}

// A standings row at its place, with what follows from the place and the round's cut
// (channels.py, placed_row): its side of the line, its distance to it (rule ST-3), exact
// (SC-4) and shown rounded down (SC-5), and its status.
export function placedRow(row, rank, position, cut, ended) {
  let above = null;
  let distance = null;
  if (cut) {
    above = position <= cut.advance;
    const other = above ? cut.next_total : cut.line_total;
    if (other !== null && other !== undefined) {
      distance = above ? subtract(row.total, other) : subtract(other, row.total);
    }
  }
  let status = "playing";
  if (ended) status = above === null ? "finished" : above ? "advanced" : "eliminated";
  return {
    ...row,
    rank,
    position,
    above_cut: above,
    distance: distance && exactText(distance),
    distance_shown: distance && shownText(distance),
    status,
  };
}

// app/domain/ariari.py points_shown (here, not in ariari.js, so that a phone loads no game
// engine for it): an exact score ("45/4") as the displays show it at an
// Ari Ari event (rule AA-17): whole points, rounded down as SC-5 rounds, with thousands
// separators ("13,200"); `minus` is the sign a negative figure takes, `signed` adds a "+".
export function pointsShown(exactValue, { minus = "-", signed = false } = {}) {
  const [numerator, denominator] = fraction(exactValue);
  let whole = numerator / denominator; // BigInt division truncates towards zero
  if (numerator % denominator !== 0n && numerator < 0n) whole -= 1n;
  const digits = (whole < 0n ? -whole : whole).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  if (whole < 0n) return minus + digits;
  return signed && whole > 0n ? `+${digits}` : digits;
}

// Exact scores travel as "n" or "n/d" (reduced): [numerator, denominator] in BigInt.
function fraction(text) {
  const [numerator, denominator = "1"] = String(text).split("/");
  return [BigInt(numerator), BigInt(denominator)];
}

function gcd(a, b) {
  let [x, y] = [a < 0n ? -a : a, b];
  while (y) [x, y] = [y, x % y];
  return x;
}

/** @returns {[bigint, bigint]} a fraction, numerator over denominator */
function subtract(a, b) {
  const [an, ad] = fraction(a);
  const [bn, bd] = fraction(b);
  const numerator = an * bd - bn * ad;
  const denominator = ad * bd;
  const common = gcd(numerator, denominator) || 1n;
  return [numerator / common, denominator / common];
}

function exactText([numerator, denominator]) {
  return denominator === 1n ? `${numerator}` : `${numerator}/${denominator}`;
}

// Two decimals, rounded towards minus infinity (rule SC-5): -10.125 shows -10.13.
function shownText([numerator, denominator]) {
  const scaled = numerator * 100n;
  let cents = scaled / denominator; // BigInt division truncates towards zero
  if (scaled % denominator !== 0n && scaled < 0n) cents -= 1n;
  const sign = cents < 0n ? "-" : "";
  const magnitude = cents < 0n ? -cents : cents;
  return `${sign}${magnitude / 100n}.${String(magnitude % 100n).padStart(2, "0")}`;
}

// Seconds left on a clock row, from its deadline and the server's time (rule CL-6).
export function secondsLeft(row, serverNowMs) {
  if (!row?.deadline) return null;
  return Math.max(0, Math.ceil((Date.parse(row.deadline) - serverNowMs) / 1000));
}

export function formatClock(seconds) {
  if (seconds === null || seconds === undefined) return "–";
  const minutes = Math.floor(seconds / 60);
  return `${minutes}:${String(seconds % 60).padStart(2, "0")}`;
}
