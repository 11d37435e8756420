// @ts-check
// The judge tablet's service worker (issue 6): it keeps the tablet page and its JS and CSS so
// that the tablet reloads while the hall's network or server is down. Network first, so a new
// version reaches the tablet whenever the server answers; the cache only when it does not.
// API calls, the live feed and whoami are never cached: they pass straight through (hands
// wait in the page's IndexedDB outbox, not here).

// The worker's own scope, typed (tsconfig.sw.json checks the workers on the WebWorker library).
/** @type {ServiceWorkerGlobalScope} */
const judgeWorker = /** @type {any} */ (self);
const CACHE = "judge-tablet-v1";
const PAGE = "/judge";
// Every module the page imports (tests/js/service_workers.test.js holds this list to them).
const ASSETS = [
  "/static/judge/main.js",
  "/static/judge/views.js",
  "/static/judge/state.js",
  "/static/judge/outbox.js",
  "/static/judge/call.js",
  "/static/ariari.js",
  "/static/judge.css",
  "/static/base.css",
  "/static/live.js",
  "/static/i18n.js",
];
const NETWORK_WAIT_MS = 4000; // a hall network that hangs counts as down

judgeWorker.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll([PAGE, ...ASSETS]))
      .then(() => judgeWorker.skipWaiting()),
  );
});

judgeWorker.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      // Only our own older caches: the spectator pages on the same device keep theirs.
      .then((names) =>
        Promise.all(names.filter((n) => n.startsWith("judge-") && n !== CACHE).map((n) => caches.delete(n))),
      )
      .then(() => judgeWorker.clients.claim()),
  );
});

function cacheKey(request) {
  const url = new URL(request.url);
  if (url.origin !== judgeWorker.location.origin || request.method !== "GET") return null;
  if (request.mode === "navigate" && url.pathname === PAGE) return PAGE; // any ?query
  return ASSETS.includes(url.pathname) ? url.pathname : null;
}

async function networkFirst(request, key) {
  const cache = await caches.open(CACHE);
  try {
    const response = await withTimeout(fetch(request, { cache: "no-store" }), NETWORK_WAIT_MS);
    if (response.ok) await cache.put(key, response.clone());
    return response;
  } catch (error) {
    const cached = await cache.match(key);
    if (cached) return cached;
    throw error;
  }
}

function withTimeout(promise, ms) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the network does not answer")), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

judgeWorker.addEventListener("fetch", (event) => {
  const key = cacheKey(event.request);
  if (key === null) return; // not ours to keep: the browser fetches it as usual
  event.respondWith(networkFirst(event.request, key));
});
