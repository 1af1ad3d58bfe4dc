// Training Lab's service worker: after a first visit the app works offline. Pages network first
// (so a new build is picked up at once when online), falling back to what was cached;
// navigations to a lab's route fall back to the cached app shell, which routes by path itself.
// Files that never change under their name (the data slices, the build's hashed wasm, script and
// styles) come from the cache first, so a repeat visit downloads none of them again.
const CACHE = 'training-lab-v8';
const IMMUTABLE = /\/data\/[^/]+\.(bin\.gz|json)$|-[0-9a-f]{16}(_bg)?\.(wasm|js|css)$/;
// The course: its pages and every lesson file (a lesson opened once also works offline, since
// everything fetched is cached).
const COURSE = ['./course.html', './lesson.html', './lesson.js', './keep.js', './class-link.js', './lesson-preview.js', './lesson-measure.js', './lesson.css', './lessons/course.json'];

// File by file: one file that cannot be fetched (a lesson removed from the site, a dropped
// connection) must not leave every other one uncached, as `addAll` (all or nothing) did.
const addEach = (c, urls) => Promise.allSettled(urls.map((u) => c.add(u)));

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const c = await caches.open(CACHE);
    await addEach(c, ['./', './index.html', './embed.js', './tutorial.html', ...COURSE]);
    // The build's hashed wasm, script and styles, named in the shell: a second visit needs none.
    try {
      const shell = await (await c.match('./index.html')).text();
      const built = [...shell.matchAll(/(?:href|src)="([^"]+-[0-9a-f]{16}(?:_bg)?\.(?:wasm|js|css))"/g)].map((m) => m[1]);
      await addEach(c, [...new Set(built)]);
    } catch { /* they are cached as they are fetched instead */ }
    try {
      const course = await (await fetch('./lessons/course.json')).json();
      // A course of units (or, written the older way, one list of lessons).
      const ids = Array.isArray(course.units) ? course.units.flatMap((u) => u.lessons || []) : course.lessons;
      await addEach(c, ids.map((id) => `./lessons/${id}.json`));
    } catch { /* the lessons are cached as they are opened instead */ }
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    if (IMMUTABLE.test(url.pathname)) {
      const hit = await cache.match(request);
      if (hit) return hit;
    }
    try {
      const response = await fetch(request);
      if (response.ok) cache.put(request, response.clone());
      return response;
    } catch (offline) {
      const hit = await cache.match(request, { ignoreSearch: request.mode === 'navigate' });
      if (hit) return hit;
      if (request.mode === 'navigate') {
        const shell = await cache.match('./index.html') || await cache.match('./');
        if (shell) return shell;
      }
      throw offline;
    }
  })());
});
