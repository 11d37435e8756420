// @ts-check
// The Ari Ari payments the judge's tablet shows on its review screen, before sending.
//
// The server decides (app/domain/ariari.py plays the whole game again on every hand); the
// tablet computes the same figures so that the judge checks the four point changes, offline
// too, against what the players see on the table. Rule numbers are those of RULES.md section
// AA and docs/ariari.md.

import { t } from "./i18n.js";

export const RIICHI_BET = 1000; // rule AA-5
export const COUNTER_RON = 300; // rule AA-6: per counter, paid by the discarder
export const COUNTER_TSUMO = 100; // rule AA-6: per counter, from each payer
export const TWO_YAKU_COUNTERS = 5; // rule AA-7
export const MANGAN = 2000; // rule AA-2, and the chombo's base (AA-10)
// rule AA-2: the limits by the names the judge taps
export const LIMITS = { mangan: 2000, haneman: 3000, baiman: 4000, sanbaiman: 6000, yakuman: 8000 };
// rule AA-19: the fu a judge may enter
export const VALID_FU = [20, 25, 30, 40, 50, 60, 70, 80, 90, 100, 110];

// rule AA-3: every single payment is rounded up to a multiple of 100
export function roundUp(points) {
  return Math.ceil(points / 100) * 100;
}

// rule AA-2: a win's base from its fan and fu, or its limit; null while incomplete
export function basePoints(win) {
  if (win.limit) return LIMITS[win.limit] ?? null;
  const fan = win.fan;
  if (!Number.isInteger(fan) || fan < 1) return null;
  if (fan >= 13) return 8000;
  if (fan >= 11) return 6000;
  if (fan >= 8) return 4000;
  if (fan >= 6) return 3000;
  if (fan === 5) return MANGAN;
  if (!VALID_FU.includes(win.fu)) return null;
  const fu = Math.ceil(win.fu / 10) * 10; // 25 fu scores as 30 (rule AA-19)
  return Math.min(fu * 2 ** (fan + 2), MANGAN);
}

// rules AA-9, AA-25: the noten pay the total between them, the tenpai share it
function tenpaiPayments(seats, tenpai, total) {
  const out = Object.fromEntries(seats.map((p) => [p, 0]));
  if (!total || tenpai.length === 0 || tenpai.length === 4) return out;
  const noten = seats.filter((p) => !tenpai.includes(p));
  for (const p of seats) {
    out[p] = tenpai.includes(p) ? Math.floor(total / tenpai.length) : -Math.floor(total / noten.length);
  }
  return out;
}

// One hand of the game in `table`: {seats (starting East first, as strings), dealer,
// counters, bets (on the table before the hand), tenpai_payment}. The result is the log's
// `result` object. Returns {payments, deltas, bets_after} by player id, deltas counting the
// riichi bets placed and collected, or null while the result is incomplete.
export function playHand(result, table) {
  const seats = table.seats.map(String);
  const dealer = String(table.dealer);
  const counters = table.counters ?? 0;
  const riichi = (result.riichi ?? []).map(String);
  const payments = Object.fromEntries(seats.map((p) => [p, 0]));
  const betChanges = Object.fromEntries(seats.map((p) => [p, riichi.includes(p) ? -RIICHI_BET : 0]));
  let betsAfter = (table.bets ?? 0) + riichi.length * RIICHI_BET; // rule AA-5
  if (result.kind === "ron") {
    const discarder = String(result.discarder);
    const winners = (result.wins ?? []).map((w) => String(w.winner));
    if (!seats.includes(discarder) || !winners.length) return null;
    for (const win of result.wins) {
      const base = basePoints(win);
      if (base === null) return null;
      // rules AA-3, AA-4, AA-6: the discarder pays each winner in full, counters included
      const paid = roundUp((String(win.winner) === dealer ? 6 : 4) * base) + COUNTER_RON * counters;
      payments[String(win.winner)] += paid;
      payments[discarder] -= paid;
    }
    // rule AA-4: the bets go to the first winner in turn order after the discarder
    const start = seats.indexOf(discarder);
    const first = [1, 2, 3].map((step) => seats[(start + step) % 4]).find((p) => winners.includes(p));
    betChanges[first] += betsAfter;
    betsAfter = 0;
  } else if (result.kind === "tsumo") {
    const winner = String(result.winner);
    const base = basePoints(result);
    if (base === null || !seats.includes(winner)) return null;
    const dealerWins = winner === dealer;
    for (const p of seats) {
      if (p === winner) continue;
      // rule AA-3: the dealer pays 2 x base, the others base; a dealer's tsumo 2 x base each
      const owed = roundUp((dealerWins || p === dealer ? 2 : 1) * base);
      const paid = owed + COUNTER_TSUMO * counters; // rule AA-6
      payments[p] -= paid;
      payments[winner] += paid;
    }
    betChanges[winner] += betsAfter; // rule AA-5: the winner collects every bet
    betsAfter = 0;
  } else if (result.kind === "exhaustive_draw") {
    Object.assign(payments, tenpaiPayments(seats, (result.tenpai ?? []).map(String), table.tenpai_payment));
  } else if (result.kind === "chombo") {
    const offender = String(result.offender);
    if (!seats.includes(offender)) return null;
    // rule AA-10: a mangan, 4,000 to East and 2,000 to each other; 4,000 each from East
    for (const p of seats) {
      if (p === offender) continue;
      const owed = offender === dealer || p === dealer ? 2 * MANGAN : MANGAN;
      payments[p] += owed;
      payments[offender] -= owed;
    }
    for (const p of seats) betChanges[p] = 0; // rule AA-10: this hand's bets go back
    betsAfter = table.bets ?? 0;
  } else {
    return null;
  }
  const deltas = Object.fromEntries(seats.map((p) => [p, payments[p] + betChanges[p]]));
  return { payments, deltas, bets_after: betsAfter };
}

// rule AA-8: East stays after winning or a tenpai draw; rule AA-10: after a chombo
function dealerKeeps(result, dealer) {
  if (result.kind === "ron") return (result.wins ?? []).some((w) => String(w.winner) === dealer);
  if (result.kind === "tsumo") return String(result.winner) === dealer;
  if (result.kind === "exhaustive_draw") return (result.tenpai ?? []).map(String).includes(dealer);
  return true;
}

// The table after one more hand: {seats, dealer, counters, bets, points, passes, ended,
// tenpai_payment, rotations}, as app/domain/ariari.play_game moves it on. The tablet uses it
// for hands still in its outbox, so that the review of the next one starts from the right
// dealer, counters and bets. Returns null while the result is incomplete.
export function advance(table, result) {
  const played = playHand(result, table);
  if (played === null) return null;
  const seats = table.seats.map(String);
  const dealer = String(table.dealer);
  const points = Object.fromEntries(seats.map((p) => [p, (table.points?.[p] ?? 0) + played.deltas[p]]));
  const keeps = dealerKeeps(result, dealer);
  let counters = table.counters ?? 0;
  // rule AA-6: a counter after East wins or a draw, none after another wins; a chombo leaves them
  if (result.kind !== "chombo") counters = result.kind === "exhaustive_draw" || keeps ? counters + 1 : 0;
  const passes = (table.passes ?? 0) + (keeps ? 0 : 1); // rule AA-8
  let ended = null;
  if (Object.values(points).some((p) => p < 0)) ended = "AA-14";
  else if (passes === table.rotations) ended = "AA-12";
  else if (
    keeps &&
    result.kind !== "chombo" && // rule AA-24: a re-deal is not a repeat
    passes === table.rotations - 1 &&
    seats.every((p) => p === dealer || points[dealer] > points[p])
  ) {
    ended = "AA-13";
  }
  return {
    ...table,
    points,
    bets: played.bets_after,
    counters,
    passes,
    dealer: ended ? null : seats[passes % 4],
    ended,
    deltas: played.deltas,
  };
}

// "East 3", "South 1": the round wind and the dealer's turn in it (rule AA-12); in the
// page's language as the players say it (東3局, 동3국).
export function handLabel(passes) {
  const hand = (passes % 4) + 1;
  return passes < 4 ? t("East {hand}", { hand }) : t("South {hand}", { hand });
}

// A final place as the players say it (rule AA-16): "1st", "2nd", "3rd", "4th" (1位, 1위)
export function ordinal(place) {
  const places = { 1: t("1st"), 2: t("2nd"), 3: t("3rd"), 4: t("4th") };
  return places[place] ?? `${place}`;
}

// The limits' names at the table: 満貫, 跳満 in Japanese (rule AA-2)
export const LIMIT_WORDS = {
  mangan: t("mangan"),
  haneman: t("haneman"),
  baiman: t("baiman"),
  sanbaiman: t("sanbaiman"),
  yakuman: t("yakuman"),
};

