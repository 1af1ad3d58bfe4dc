import { serve, launch, byId, text, until } from './harness.mjs';
const server = await serve();
const { browser, page } = await launch({ webgpu: false });
const [width, url, ids, run] = [Number(process.argv[2]), process.argv[3], process.argv[4].split(','), process.argv[5]];
await page.setViewportSize({ width, height: 900 });
await page.goto(`${server.url}${url}`);
await page.waitForTimeout(1500);
if (run) {
  await page.click(byId('attn-run'));
  await until(async () => /^(done|failed)/.test(await text(page, 'attn-status')), 300_000, 'run');
}
for (const id of ids) {
  const fig = page.locator(`${byId(id)}`).locator('xpath=ancestor::figure[1]');
  await fig.screenshot({ path: `/tmp/clip-${id}-${width}.png` });
}
await browser.close();
await server.close();
