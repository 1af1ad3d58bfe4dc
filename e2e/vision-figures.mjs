// Trains a vision-lab preset in headless Chromium and prints what the page measured (test
// accuracy, wall time, samples/s, frame rate). Not a test: the README quotes its output.
//   node e2e/vision-figures.mjs [mnist|fashion] [training images] [cpu|webgpu] [preset 0|1|2] [epochs]
import { serve, launch, byId, text, until } from './harness.mjs';

const [set = 'mnist', train = '60000', backend = 'cpu', preset = '1', epochs = ''] = process.argv.slice(2);
const server = await serve();
const { browser, page } = await launch({ webgpu: backend === 'webgpu' });
try {
  await page.goto(`${server.url}vision`);
  await page.selectOption(byId('vision-set'), set);
  await page.selectOption(byId('vision-train'), train);
  await page.selectOption(byId('vision-preset'), preset);
  if (epochs) {
    await page.fill(byId('vision-epochs'), epochs);
    await page.dispatchEvent(byId('vision-epochs'), 'change');
  }
  await page.selectOption(byId('vision-backend'), backend);
  await page.click(byId('vision-run'));
  await until(async () => (await page.evaluate(() => window.__labVision?.done)) === true, 3_600_000, 'training');
  const figures = await page.evaluate(() => window.__labVision);
  console.log(JSON.stringify({ set, train: Number(train), backend, preset: Number(preset), status: await text(page, 'vision-status'), ...figures }));
} finally {
  await browser.close();
  await server.close();
}
