// The course's service worker: after the first visit, the site works with no network at all.
//
// site/build.py installs this file as the site's service-worker.js (the URL JupyterLite's page
// registers), with SITE written in: {version, files}, the site's files (paths from the site's
// root, no query string, each with a hash of its bytes) and a hash of the whole build. JupyterLite's own worker, moved beside this one,
// is imported at the end: it still answers the kernel's file system (/api/drive), input()
// (/api/stdin) and its heartbeat, which only a worker can answer.
//
// Everything else the page asks of the site comes from one cache per build: cache first, else
// the network (and what it brought is kept). The whole site is put in the cache in the
// background once the worker runs; a new build has a new version, hence a new cache, and the
// old one is deleted when the new worker takes over. A file is kept under its URL and its
// hash (`stored`): a new build takes the files it did not change from the old cache, and
// fetches only the others.
"use strict";

// JupyterLite's worker, imported below, shares this global scope: its names (CACHE, onFetch,
// ...) are not ours to reuse.
const SITE = __SITE__; // written by site/build.py
const PREFIX = "cours-";
const COURSE_CACHE = PREFIX + SITE.version;
const ROOT = new URL("./", self.location.href); // the site's root, where this file is
// URL (encoded) -> hash of the file's bytes, for every file the build listed.
const LISTED = new Map(
  Object.entries(SITE.files).map(([file, hash]) => [new URL(file, ROOT).href, hash]));
const LEFT_TO_JUPYTERLITE = ["/api/drive", "/api/stdin/", "/api/service-worker-heartbeat"];
const AT_ONCE = 4; // files fetched together while precaching: the page is loading too

// Registered before JupyterLite's listener (imported below): for what we answer, we stop the
// event, so that its listener does not answer it a second time.
self.addEventListener("fetch", (event) => {
  const { request } = event;
  const url = new URL(request.url);
  keepPrecaching(event);
  if (request.method !== "GET" || url.origin !== ROOT.origin) return;
  if (LEFT_TO_JUPYTERLITE.some((part) => url.pathname.includes(part))) return;
  event.respondWith(cacheFirst(request, url));
  event.stopImmediatePropagation();
});

// The file a request names, if the build listed it: its URL without the query string (a
// static host ignores it: `bundle.js?_=c9f706b` is bundle.js), a folder's index.html; else null.
function listedFile(url) {
  const path = url.pathname.endsWith("/") ? url.pathname + "index.html" : url.pathname;
  const file = new URL(path, url.origin).href;
  return LISTED.has(file) ? file : null;
}

// Where a listed file is kept: its URL and its hash, the same key in every build that has the
// same bytes (`bundle.js?cours=1a2b…`). Never asked for by the page, only by this worker.
function stored(file) {
  return `${file}?cours=${LISTED.get(file)}`;
}

let opened = null; // this build's cache, opened once per worker's life (every request uses it)

async function cacheFirst(request, url) {
  opened = opened || caches.open(COURSE_CACHE);
  const cache = await opened;
  const file = listedFile(url);
  const key = file ? stored(file) : url.href;
  const cached = await cache.match(key);
  if (cached) return cached;
  // A listed file is fetched as the precache fetches it, revalidated with the host (no-cache):
  // the browser's HTTP cache never hands a previous build's copy to this build's cache.
  const response = await (file ? fetch(file, { cache: "no-cache" }) : fetch(request));
  // Only whole, successful, same-origin answers: never a 404 or a redirect kept for good.
  if (response.status === 200 && response.type === "basic") {
    await cache.put(key, response.clone());
  }
  return response;
}

// Precaching: started by the first request the worker sees, shared by all the following ones,
// each of which keeps the worker alive until it is done (event.waitUntil). Not in `install`:
// the page's kernel needs the worker active (its file system) while the site is still loading.
let precaching = null;
let failed = false;

function keepPrecaching(event) {
  if (!precaching || (failed && event.request.mode === "navigate")) {
    failed = false;
    precaching = precache().catch((error) => {
      failed = true; // retried on the next page load (a navigation), not on every request
      console.warn("Cours hors ligne : mise en cache incomplète", error);
    });
  }
  event.waitUntil(precaching);
}

// Idempotent: a file already in this version's cache is never fetched again, so a worker
// stopped half-way (or registered a second time) only fetches what is missing. A file with
// the same bytes in a previous build's cache (same key) is copied from there.
async function precache() {
  const cache = await caches.open(COURSE_CACHE);
  const queue = [...LISTED.keys()];
  async function fetchNext() {
    for (let file = queue.shift(); file; file = queue.shift()) {
      const key = stored(file);
      if (await cache.match(key)) continue;
      const earlier = await caches.match(key); // any cache: an older build's, same bytes
      // no-cache: revalidated with the host, never a stale copy of a previous build's file.
      const response = earlier || (await fetch(file, { cache: "no-cache" }));
      if (response.status !== 200) throw new Error(`${file} : ${response.status}`);
      await cache.put(key, response);
    }
  }
  await Promise.all(Array.from({ length: AT_ONCE }, fetchNext));
}

// An update (an older build's worker serves the site): the new build is cached whole before
// it takes over, so that the site is never half old and half new, or half cached.
self.addEventListener("install", (event) => {
  if (self.registration.active) event.waitUntil(precache());
});

// A new build's worker takes over (JupyterLite's worker calls skipWaiting): the caches of
// the previous builds go.
self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys().then((names) => Promise.all(
    names.filter((name) => name.startsWith(PREFIX) && name !== COURSE_CACHE)
      .map((name) => caches.delete(name)))));
});

importScripts("./jupyterlite-service-worker.js");
