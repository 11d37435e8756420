// @ts-check
/// <reference types="node" />
// The service workers keep every module their pages import, so that a tablet or a phone that
// reloads offline has all of them (a module missing from the cache fails the whole page).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const STATIC = new URL("../../app/static/", import.meta.url);

/** Every module a page's entry module imports, itself included, as /static/... paths. */
function modulesOf(/** @type {string} */ entry) {
  const seen = new Set();
  const visit = (/** @type {string} */ path) => {
    if (seen.has(path)) return;
    seen.add(path);
    const url = new URL(path.replace(/^\/static\//, ""), STATIC);
    const source = readFileSync(fileURLToPath(url), "utf8");
    for (const [, target] of source.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"/gms)) {
      visit(new URL(target, new URL(path, "http://hall")).pathname);
    }
  };
  visit(entry);
  return [...seen].sort();
}

/** The list a worker keeps, as written in its source. */
function kept(/** @type {string} */ worker, /** @type {string} */ name) {
  const source = readFileSync(fileURLToPath(new URL(worker, STATIC)), "utf8");
  const list = source.match(new RegExp(`const ${name} = \\[([^\\]]*)\\]`));
  assert.ok(list, `${worker} has no ${name} list`);
  return [...list[1].matchAll(/"([^"]+)"/g)].map((m) => m[1]);
}

test("the judge's service worker keeps every module of the tablet", () => {
  const modules = modulesOf("/static/judge/main.js");
  assert.ok(modules.includes("/static/judge/outbox.js") && modules.includes("/static/live.js"));
  const assets = kept("judge-sw.js", "ASSETS");
  assert.deepEqual(
    modules.filter((m) => !assets.includes(m)),
    [],
  );
});

test("the spectators' service worker keeps every module of their pages", () => {
  const shell = kept("spectator-sw.js", "SHELL");
  assert.deepEqual(
    modulesOf("/static/spectator.js").filter((m) => !shell.includes(m)),
    [],
  );
});
