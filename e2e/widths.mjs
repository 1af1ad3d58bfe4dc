// Screenshots of pages at the four widths a lab must fit (1280, 1024, a 700 px embed, a 390 px
// phone), each after pressing its run button with the defaults (or the state after `?`) and
// waiting for the run, and
// whether the page scrolls sideways. Not a test: `node e2e/widths.mjs [--webgpu] cluster scaling …` writes
// target/e2e/widths/<page>-<width>.png for a person to look at and prints the overflow.
import path from 'node:path';
import fs from 'node:fs';
import { serve, launch, root } from './harness.mjs';

const RUN = {
  cluster: ['cl-train', 'cl-status', /^(done|failed|trained)/i],
  scaling: ['scale-run', 'scale-status', /^(done|failed)/],
  landscape: ['land-run', 'land-status', /^(done|failed)/],
  optimizers: null,
  vision: ['vision-run', 'vision-status', /^(done|failed|stopped)/],
  precision: ['prec-run', 'prec-status', /^(done|failed)/],
  parallelism: ['par-run', 'par-status', /^(done|failed)/],
  '': null,
  bench: null,
  sparsity: ['sparse-run', 'sparse-status', /^(done|failed)/],
  hardware: ['hw-run', 'hw-status', /^(done|failed)/],
  attention: ['attn-run', 'attn-status', /^(done|failed)/],
  labs: null,
};
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
    const run = RUN[base];
    if (run) {
      await page.click(`[data-testid="${run[0]}"]`);
      const end = Date.now() + 240_000;
      while (Date.now() < end) {
        const status = (await page.locator(`[data-testid="${run[1]}"]`).textContent()) ?? '';
        if (run[2].test(status.trim()) || !(await page.locator(`[data-testid="${run[0]}"]`).isDisabled())) break;
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
