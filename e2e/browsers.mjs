// One Chromium for every browser test file: `scripts/test.sh` starts this before `node --test`
// and stops it after. It launches a browser server per set of flags the tests use (with WebGPU,
// and without), writes their addresses to the file named by its argument, and waits; each test
// file connects to them (harness.mjs) instead of starting its own Chromium, and each test still
// gets a fresh context (its own storage, service workers and downloads).
import fs from 'node:fs';
import { chromium, browserArgs } from './harness.mjs';

const out = process.argv[2];
if (!out) {
  console.error('browsers.mjs: give the file to write the browsers\' addresses to');
  process.exit(2);
}
const servers = await Promise.all([false, true].map((webgpu) => chromium.launchServer({
  executablePath: '/usr/bin/chromium', headless: true, args: browserArgs({ webgpu }),
})));
const endpoints = Object.fromEntries(servers.map((s, i) => [JSON.stringify(browserArgs({ webgpu: i === 1 })), s.wsEndpoint()]));
fs.writeFileSync(`${out}.tmp`, JSON.stringify(endpoints));
fs.renameSync(`${out}.tmp`, out);
const stop = async () => {
  await Promise.all(servers.map((s) => s.close()));
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
