// Screenshots of pages at the four widths a lab must fit (1280, 1024, a 700 px embed, a 390 px
// phone), each after pressing its run button with the defaults (or the state after `?`) and
// waiting for the run, and
// whether the page scrolls sideways. Not a test: `node e2e/widths.mjs [--webgpu] cluster scaling …` writes
// target/e2e/widths/<page>-<width>.png for a person to look at and prints the overflow.
import path from 'node:path';
import fs from 'node:fs';
import { serve, launch, root, LABS } from './harness.mjs';

// A lab's run button is `<prefix>-run` and its status `<prefix>-status` (the registry's prefix);
// the cluster names its button for what it does, and the benchmark (a whole epoch) is not pressed.
// A lab without such a button draws as it opens.
const RUN_BUTTON = { cluster: 'cl-train', bench: null };
const DONE = /^(done|failed|trained|stopped)/i;
function runOf(base) {
  const lab = LABS.find((l) => l.route === base);
  const button = lab && (lab.id in RUN_BUTTON ? RUN_BUTTON[lab.id] : `${lab.prefix}-run`);
  return button ? [button, `${lab.prefix}-status`] : null;
}
// `--webgpu` opens the pages with SwiftShader's WebGPU, as the browser tests do.
const webgpu = process.argv.includes('--webgpu');
const pages = process.argv.slice(2).filter((a) => a !== '--webgpu');
const server = await serve();
const { browser, page } = await launch({ webgpu });
const dir = path.join(root, 'target', 'e2e', 'widths');
fs.mkdirSync(dir, { recursive: true });
try {
  for (const name of pages) {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.url}${name}`);
    await page.waitForTimeout(1500);
    // A page may carry its state (`vision?train=2000&epochs=1`): the run is looked up by its path.
    const [base, query] = name.split('?');
    const run = runOf(base);
    if (run && (await page.locator(`[data-testid="${run[0]}"]`).count()) > 0) {
      await page.click(`[data-testid="${run[0]}"]`);
      const end = Date.now() + 240_000;
      while (Date.now() < end) {
        const status = (await page.locator(`[data-testid="${run[1]}"]`).first().textContent({ timeout: 1000 }).catch(() => '')) ?? '';
        if (DONE.test(status.trim()) || !(await page.locator(`[data-testid="${run[0]}"]`).isDisabled())) break;
        await page.waitForTimeout(500);
      }
    }
    for (const width of [1280, 1024, 700, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForTimeout(700);
      const overflow = await page.evaluate(() => document.scrollingElement.scrollWidth - window.innerWidth);
      const file = path.join(dir, `${base}${query ? '-state' : ''}-${width}.png`);
      await page.screenshot({ path: file, fullPage: true });
      console.log(`${name} ${width}px: ${overflow > 0 ? `scrolls sideways by ${overflow} px` : 'fits'} → ${file}`);
    }
  }
} finally {
  await browser.close();
  await server.close();
}
