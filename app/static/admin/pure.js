// @ts-check
// The admin console's pure helpers (issue 15, from admin.js): the prize table as the organizer
// types it, and work done a few at a time. No DOM here: tests/js/admin_pure.test.js runs them.
// Its words come from the page's catalog; under Node, i18n.js speaks English.

import { t } from "../i18n.js";

// The prize table as typed: amounts apart by spaces, semicolons or commas; plain numbers
// as numbers, exact fractions ("1000/3") as strings. "1,000" or "500,300" could be one
// amount written with a thousands separator or two amounts: it is refused, never guessed
// (read as a list, "1,000 500" made the first prize 1 and the second 0).
export function prizeAmounts(typed) {
  const amounts = [];
  for (const piece of typed.split(/[\s;]+/)) {
    const run = piece.replace(/^,+|,+$/g, "");
    if (!run) continue;
    if (/^-?\d{1,3}(,\d{3})+(\.\d+)?$/.test(run)) {
      throw new Error(
        t(
          "“{typed}” could be one amount with a thousands separator or {count} amounts: " +
            "write {one} for one, or {several} for several (rule PR-2)",
          {
            typed: run,
            count: run.split(",").length,
            one: run.replaceAll(",", ""),
            several: run.split(",").join(", "),
          },
        ),
      );
    }
    amounts.push(...run.split(",").filter(Boolean));
  }
  return amounts.map((amount) => (/^-?\d+(\.\d+)?$/.test(amount) ? Number(amount) : amount));
}

// `work` on every item, at most `limit` at once (the console issues a day's table tokens so).
export async function runLimited(items, limit, work) {
  const queue = [...items];
  const workers = Array.from({ length: Math.min(limit, queue.length) }, async () => {
    while (queue.length) await work(queue.shift());
  });
  await Promise.all(workers);
}
