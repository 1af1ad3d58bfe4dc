import path from 'node:path';
import { serve, launch, root, byId } from './harness.mjs';
const server = await serve();
const { browser, page } = await launch({ webgpu: true });
const dir = path.join(root, 'target', 'e2e', 'widths');
try {
  for (const w of [1280, 390]) {
    await page.setViewportSize({ width: w, height: 900 });
    await page.goto(`${server.url}attention`);
    await page.click(byId('attn-split-run'));
    await page.locator(byId('attn-split-result')).waitFor({ timeout: 60000 });
    await page.locator(byId('attn-split-check')).screenshot({ path: path.join(dir, `split-${w}.png`) });
    const over = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    console.log(w, 'overflow', over);
    await page.goto(`${server.url}bench?workload=T1&backend=cpu&autostart=1&steps=40`);
    await page.waitForFunction(() => window.__labBench !== undefined, null, { timeout: 120000 });
    await page.screenshot({ path: path.join(dir, `bench-t1-${w}.png`), fullPage: true });
    console.log(w, 'bench overflow', await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth));
  }
} finally { await browser.close(); await server.close(); }
