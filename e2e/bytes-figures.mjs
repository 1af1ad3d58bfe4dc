// Prints what each page costs over the wire, served as most static hosts serve (text and wasm
// gzip-compressed, the data slices as they are): on a first visit, from opening the page until
// its run is under way (the start pressed, the network quiet for two seconds), and on a repeat
// visit in the same browser (the service worker in place). Counted at the server, so bytes the
// browser's caches answer are not counted. Not a test: the README quotes its output.
//   node e2e/bytes-figures.mjs [DIR]    (default dist/, as `scripts/run.sh` builds it)
import path from 'node:path';
import { serve, launch, root, ROUTES } from './harness.mjs';

const dir = path.resolve(process.argv[2] || path.join(root, 'dist'));
let counted = new Map();
const server = await serve(dir, { isolated: false, gzip: true, sent: (p, n) => counted.set(p, (counted.get(p) || 0) + n) });
// Every lab with its defaults, the vision lab on Fashion-MNIST, the course and a lesson.
const PAGES = [...ROUTES, 'vision?set=fashion', 'course.html', 'lesson.html?id=optimizers-momentum'];
const isPage = (p) => /\.html/.test(p);
const quiet = async (page, since) => {
  let last = Date.now();
  page.on('request', () => { last = Date.now(); });
  while (Date.now() - Math.max(last, since) < 2000) await page.waitForTimeout(250);
};

/** Opens `p`, presses its start where it has one, and waits for the network to go quiet. */
async function visit(page, p) {
  await page.goto(`${server.url}${p}${isPage(p) ? '' : `${p.includes('?') ? '&' : '?'}backend=cpu`}`);
  const start = page.locator('[data-lab-start="true"]:not([disabled])').first();
  if (!isPage(p)) {
    await start.waitFor({ timeout: 120_000 });
    await start.click();
  }
  await quiet(page, Date.now());
}

const mb = (n) => (n / 1e6).toFixed(2);
const rows = [];
for (const p of PAGES) {
  const { browser, page } = await launch({ webgpu: false });
  counted = new Map();
  await visit(page, p);
  const first = new Map(counted);
  // The service worker takes over once installed; give it a moment, then come back.
  await page.evaluate(() => navigator.serviceWorker?.ready).catch(() => {});
  counted = new Map();
  const again = await page.context().newPage();
  await page.close();
  await visit(again, p);
  const sum = (m, test = () => true) => [...m].filter(([k]) => test(k)).reduce((n, [, v]) => n + v, 0);
  const isData = (k) => k.includes('/data/');
  rows.push({ page: `/${p}`, firstMB: mb(sum(first)), firstDataMB: mb(sum(first, isData)), repeatMB: mb(sum(counted)) });
  if (process.env.BYTES_FILES) console.log(p, [...first].map(([k, v]) => `${k} ${v}`).join('\n'));
  await browser.close();
}
console.log(`bytes over the wire, ${dir}`);
console.table(rows);
await server.close();
