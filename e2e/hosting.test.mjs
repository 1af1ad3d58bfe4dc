// End-to-end: the hosting chapter's recipes, each run as it is on Debian's own server — nginx
// (scripts/hosting/nginx.conf, with the Brotli module), Apache (the .htaccess scripts/site.sh
// writes, scripts/hosting/htaccess) and Caddy (scripts/hosting/Caddyfile) — serving the static
// site the test stage built (target/e2e/site, under /course/lab/, with the Brotli and gzip copies
// scripts/compress.mjs wrote). Each sends a page, the app's script and its wasm as the Brotli copy
// to a browser that takes Brotli, as the gzip copy to one that takes only gzip, and as they are to
// one that takes neither, each with its own type (application/wasm for the wasm) and the same bytes
// once unpacked; the data slices (gzip files the page unpacks itself) always as they are. Then a
// browser opens a lab from each and trains. It prints the bytes a lab's first visit costs per recipe
// (the page, its script, its stylesheet, its wasm).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, root, until } from './harness.mjs';

const SITE = path.join(root, 'target', 'e2e', 'site');
const BASE = 'course/lab/';
const RECIPES = path.join(root, 'scripts', 'hosting');
let www;
const servers = [];

const freePort = () => new Promise((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
});
const exists = (p) => fs.existsSync(p);

before(() => {
  assert.ok(exists(path.join(SITE, BASE, 'index.html')), 'the static site (scripts/test.sh builds it with scripts/site.sh)');
  // A copy the servers' own users may read (Apache will not serve as root).
  www = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-hosting-'));
  fs.chmodSync(www, 0o755);
  fs.cpSync(SITE, www, { recursive: true });
  execFileSync('chmod', ['-R', 'a+rX', www]);
});
after(() => {
  for (const s of servers) s.kill();
  if (www) fs.rmSync(www, { recursive: true, force: true });
});

/** Starts `cmd` and waits until `port` answers. */
async function start(name, cmd, args, port, env = {}) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  let said = '';
  child.stderr.on('data', (d) => { said += d; });
  servers.push(child);
  await until(async () => {
    try { return (await fetch(`http://127.0.0.1:${port}/${BASE}`)).status > 0; } catch { return false; }
  }, 15_000, `${name} answers (${said})`);
  return `http://127.0.0.1:${port}/`;
}

async function nginx(dir) {
  const port = await freePort();
  const recipe = fs.readFileSync(path.join(RECIPES, 'nginx.conf'), 'utf8');
  const server = recipe.replace('listen 80;', `listen 127.0.0.1:${port};`).replace('root /srv/www;', `root ${www};`);
  assert.notEqual(server, recipe);
  const brotli = '/usr/lib/nginx/modules/ngx_http_brotli_static_module.so';
  fs.writeFileSync(path.join(dir, 'nginx.conf'), `${exists(brotli) ? `load_module ${brotli};\n` : ''}daemon off; master_process off; pid ${dir}/nginx.pid; error_log ${dir}/error.log;
events {}
http { access_log off; client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
${server}
}
`);
  return start('nginx', '/usr/sbin/nginx', ['-p', dir, '-c', path.join(dir, 'nginx.conf')], port);
}

async function apache(dir) {
  const port = await freePort();
  const mod = (m) => `LoadModule ${m}_module /usr/lib/apache2/modules/mod_${m}.so`;
  fs.writeFileSync(path.join(dir, 'apache.conf'), [
    `ServerRoot ${dir}`, `Listen 127.0.0.1:${port}`, `PidFile ${dir}/apache.pid`, `ErrorLog ${dir}/apache-error.log`,
    'ServerName 127.0.0.1', 'User nobody', 'Group nogroup',
    mod('mpm_event'), mod('authz_core'), mod('dir'), mod('mime'), mod('rewrite'), mod('headers'),
    'TypesConfig /etc/mime.types', 'DirectoryIndex index.html', `DocumentRoot ${www}`,
    `<Directory ${www}>`, '  AllowOverride All', '  Require all granted', '</Directory>', '',
  ].join('\n'));
  return start('apache', '/usr/sbin/apache2', ['-f', path.join(dir, 'apache.conf'), '-DFOREGROUND'], port);
}

async function caddy(dir) {
  const port = await freePort();
  const recipe = fs.readFileSync(path.join(RECIPES, 'Caddyfile'), 'utf8');
  const site = recipe.replace('labs.example.edu {', `{\n\tadmin off\n}\nhttp://127.0.0.1:${port} {`).replace('root * /srv/www', `root * ${www}`);
  assert.notEqual(site, recipe);
  fs.writeFileSync(path.join(dir, 'Caddyfile'), site);
  return start('caddy', '/usr/bin/caddy', ['run', '--config', path.join(dir, 'Caddyfile'), '--adapter', 'caddyfile'], port, { HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir });
}

/** One GET with `accept` as Accept-Encoding, the body as sent (node's fetch would unpack it). */
async function raw(url, accept) {
  const { default: http } = await import('node:http');
  return new Promise((resolve, reject) => {
    http.get(url, { headers: accept ? { 'accept-encoding': accept } : {} }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}
const unpack = (r) => (r.headers['content-encoding'] === 'br' ? zlib.brotliDecompressSync(r.body)
  : r.headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(r.body) : r.body);

test('nginx, Apache and Caddy serve the precompressed copies as their recipes say, and a lab trains from each', async () => {
  const site = path.join(www, BASE);
  const wasm = fs.readdirSync(site).find((f) => f.endsWith('_bg.wasm'));
  const script = fs.readdirSync(site).find((f) => /^app-.*\.js$/.test(f));
  const style = fs.readdirSync(site).find((f) => /^style-.*\.css$/.test(f));
  const slice = fs.readdirSync(path.join(site, 'data')).find((f) => f.endsWith('.bin.gz'));
  const files = [['optimizers/index.html', /^text\/html/], [script, /^(text|application)\/javascript/], [style, /^text\/css/], [wasm, /^application\/wasm/]];
  const figures = [];
  const problems = [];
  for (const [name, run] of [['nginx', nginx], ['Apache', apache], ['Caddy', caddy]]) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `lab-${name}-`));
    fs.chmodSync(dir, 0o755);
    const url = await run(dir);
    const bytes = { br: 0, gzip: 0, none: 0 };
    for (const [file, type] of files) {
      const want = fs.readFileSync(path.join(site, file));
      for (const [accept, encoding] of [['br, gzip', 'br'], ['gzip', 'gzip'], ['', undefined]]) {
        const r = await raw(`${url}${BASE}${file}`, accept);
        const where = `${name}, ${file}, Accept-Encoding "${accept}"`;
        if (r.status !== 200) { problems.push(`${where}: ${r.status}`); continue; }
        if (r.headers['content-encoding'] !== encoding) problems.push(`${where}: Content-Encoding ${r.headers['content-encoding']}, not ${encoding}`);
        if (!type.test(String(r.headers['content-type']))) problems.push(`${where}: Content-Type ${r.headers['content-type']}`);
        if (!unpack(r).equals(want)) problems.push(`${where}: other bytes once unpacked`);
        bytes[encoding || 'none'] += r.body.length;
      }
    }
    const data = await raw(`${url}${BASE}data/${slice}`, 'br, gzip');
    if (data.headers['content-encoding'] || !data.body.equals(fs.readFileSync(path.join(site, 'data', slice)))) {
      problems.push(`${name}: the data slice ${slice} not sent as it is (Content-Encoding ${data.headers['content-encoding']})`);
    }
    // A browser opens a lab from it and trains.
    const { browser, page, errors } = await launch({ webgpu: false });
    try {
      await page.goto(`${url}${BASE}optimizers/`);
      await page.locator('[data-metric^="final-"]').first().waitFor({ timeout: 60_000 });
      if (errors.length) problems.push(`${name}: the page said ${errors}`);
    } finally {
      await browser.close();
    }
    figures.push(`  ${name.padEnd(7)} Brotli ${(bytes.br / 1e6).toFixed(2)} MB, gzip only ${(bytes.gzip / 1e6).toFixed(2)} MB, uncompressed ${(bytes.none / 1e6).toFixed(2)} MB`);
  }
  console.log(`a lab's first visit (its page, script, stylesheet and wasm) over the wire, per recipe:\n${figures.join('\n')}`);
  assert.deepEqual(problems, []);
});
