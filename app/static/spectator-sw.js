// @ts-check
// The spectator pages' service worker, served as /spectator-spectatorWorker.js (the server fills in the
// version from the shell's files, so a change to any of them installs a new worker).
//
// It answers only for the spectator's pages and their shell; every other request (the hall,
// the judges' tablets, the API, the live feed) goes to the network untouched.
// - the shell (CSS, JS, manifest, icon): from the cache, fetched once per version;
// - the pages (/, /p/...): from the network, so figures are fresh; the last copy of each is
//   kept, and shown when the phone is offline (the live feed then says "offline").

// The worker's own scope, typed (tsconfig.sw.json checks the workers on the WebWorker library).
/** @type {ServiceWorkerGlobalScope} */
const spectatorWorker = /** @type {any} */ (self);
const VERSION = "__VERSION__";
const SHELL_CACHE = `spectator-shell-${VERSION}`;
const PAGE_CACHE = "spectator-pages";
const KEEP_PAGES = 30;
const SHELL = [
  "/static/base.css",
  "/static/spectator.css",
  "/static/live.js",
  "/static/i18n.js",
  "/static/needs.js",
  "/static/spectator.js",
  "/static/manifest.webmanifest",
  "/static/icons/icon-192.png",
];

spectatorWorker.addEventListener("install", (event) => {
  event.waitUntil(caches.open(SHELL_CACHE).then((cache) => cache.addAll(SHELL)).then(() => spectatorWorker.skipWaiting()));
});

spectatorWorker.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) =>
        Promise.all(
          names.filter((n) => n.startsWith("spectator-shell-") && n !== SHELL_CACHE).map((n) => caches.delete(n)),
        ),
      )
      .then(() => spectatorWorker.clients.claim()),
  );
});

function isSpectatorPage(url, request) {
  return request.mode === "navigate" && (url.pathname === "/" || /^\/p\/[^/]+$/.test(url.pathname));
}

spectatorWorker.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== location.origin) return;
  if (SHELL.includes(url.pathname)) {
    event.respondWith(caches.match(url.pathname).then((hit) => hit ?? fetch(request)));
  } else if (isSpectatorPage(url, request)) {
    event.respondWith(networkFirst(request));
  }
  // Anything else: not ours to answer.
});

async function networkFirst(request) {
  const cache = await caches.open(PAGE_CACHE);
  try {
    const response = await fetch(request);
    if (response.ok) {
      await cache.put(request, response.clone());
      const keys = await cache.keys();
      for (const old of keys.slice(0, Math.max(0, keys.length - KEEP_PAGES))) await cache.delete(old);
    }
    return response;
  } catch (error) {
    const hit = await cache.match(request);
    if (hit) return hit;
    throw error;
  }
}
