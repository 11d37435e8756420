// @ts-check
/// <reference types="node" />
// The admin console's pure helpers (app/static/admin/pure.js) under Node.
import assert from "node:assert/strict";
import { test } from "node:test";

import { prizeAmounts, runLimited } from "../../app/static/admin/pure.js";

test("rule PR-2: the prize table as typed, apart by spaces, semicolons or commas", () => {
  assert.deepEqual(prizeAmounts("1000 500; 250,10 , 1000/3"), [1000, 500, 250, 10, "1000/3"]);
  assert.deepEqual(prizeAmounts(" 12.5 "), [12.5]);
  assert.deepEqual(prizeAmounts(""), []);
});

test("rule PR-2: an amount that could be one with a thousands separator is refused, not guessed", () => {
  assert.throws(() => prizeAmounts("1,000 500"), /“1,000” could be one amount .* write 1000 for one, or 1, 000 for several/);
  assert.throws(() => prizeAmounts("500,300"), /rule PR-2/);
});

test("work runs on every item, never more than the limit at once", async () => {
  let running = 0;
  let most = 0;
  const done = [];
  await runLimited([1, 2, 3, 4, 5, 6, 7], 3, async (item) => {
    running += 1;
    most = Math.max(most, running);
    await new Promise((resolve) => setTimeout(resolve, 5 * (item % 3)));
    done.push(item);
    running -= 1;
  });
  assert.equal(most, 3);
  assert.deepEqual(
    [...done].sort((a, b) => a - b),
    [1, 2, 3, 4, 5, 6, 7],
  );
});
