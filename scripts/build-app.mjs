#!/usr/bin/env node
// Builds the app (app/index.html and what it names) into a folder any web server serves as it is:
//
//   node scripts/build-app.mjs [--profile release|e2e|dev] [--public-url /base/] [--dist DIR]
//
// cargo builds the app for wasm32; wasm-bindgen writes its JavaScript glue; a release build is
// shrunk by binaryen's wasm-opt (-Oz); the glue, the wasm and the styles are named by a hash of
// their contents (so public/sw.js may cache them for good); index.html gets the links that
// preload them and the script that starts the app; the `<link data-copy>` files and folders of
// public/ are copied beside it; mdbook builds the book into book/. The folder is written beside
// DIR and swapped in whole at the end, so a failed build leaves the last good one.
//
// It does what a bundler such as trunk would, in one script of the project's own: a new machine
// builds no bundler from source (docs/book/src/contributor/performance/test-time-cheaper-base.md).
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function parseArgs(argv) {
  const opts = { profile: 'release', publicUrl: '/', dist: path.join(root, 'dist') };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === '--profile') opts.profile = value;
    else if (flag === '--public-url') opts.publicUrl = value;
    else if (flag === '--dist') opts.dist = path.resolve(value);
    else throw new Error(`unknown argument '${flag}' (use --profile NAME --public-url /base/ --dist DIR)`);
  }
  if (!/^[a-z][a-z0-9_-]*$/.test(opts.profile)) throw new Error(`--profile '${opts.profile}' is not a cargo profile name`);
  if (!opts.publicUrl.startsWith('/')) opts.publicUrl = `/${opts.publicUrl}`;
  if (!opts.publicUrl.endsWith('/')) opts.publicUrl += '/';
  return opts;
}

function run(cmd, args) {
  execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });
}

/** The first 16 hex digits of the contents' SHA-256 (public/sw.js knows names by them). */
function hashOf(...buffers) {
  const h = crypto.createHash('sha256');
  for (const b of buffers) h.update(b);
  return h.digest('hex').slice(0, 16);
}

function build({ profile, publicUrl: base, dist }) {
  const target = process.env.CARGO_TARGET_DIR || path.join(root, 'target');
  run('cargo', ['build', '-p', 'app', '--bin', 'app', '--target', 'wasm32-unknown-unknown', '--profile', profile]);
  const built = path.join(target, 'wasm32-unknown-unknown', profile === 'dev' ? 'debug' : profile, 'app.wasm');

  const staging = `${dist}.staging`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  run('wasm-bindgen', ['--target', 'web', '--no-typescript', '--out-dir', staging, '--out-name', 'app', built]);
  const [glue, wasm] = [path.join(staging, 'app.js'), path.join(staging, 'app_bg.wasm')];
  if (profile === 'release') run('wasm-opt', ['-Oz', `--output=${wasm}`, wasm]);
  const hash = hashOf(fs.readFileSync(glue), fs.readFileSync(wasm));
  const [js, bin] = [`app-${hash}.js`, `app-${hash}_bg.wasm`];
  fs.renameSync(glue, path.join(staging, js));
  fs.renameSync(wasm, path.join(staging, bin));

  const page = path.join(root, 'app', 'index.html');
  const lines = fs.readFileSync(page, 'utf8').split('\n');
  const out = [];
  for (const line of lines) {
    const link = line.match(/^(\s*)<link data-(css|copy) href="([^"]+)" \/>\s*$/);
    if (!link) {
      out.push(line.includes('</body>') ? line.replace('</body>', `${starter(base, js, bin)}\n</body>`) : line);
      continue;
    }
    const [, indent, kind, href] = link;
    const from = path.resolve(path.dirname(page), href);
    const name = path.basename(from);
    if (kind === 'css') {
      const css = fs.readFileSync(from);
      const hashed = `${path.parse(name).name}-${hashOf(css)}.css`;
      fs.writeFileSync(path.join(staging, hashed), css);
      out.push(`${indent}<link rel="stylesheet" href="${base}${hashed}" />`);
      out.push(`${indent}<link rel="modulepreload" href="${base}${js}" crossorigin="anonymous" />`);
      out.push(`${indent}<link rel="preload" href="${base}${bin}" crossorigin="anonymous" as="fetch" type="application/wasm" />`);
    } else {
      fs.cpSync(from, path.join(staging, name), { recursive: true });
    }
  }
  if (!out.some((l) => l.includes(`from '${base}${js}'`))) throw new Error(`${page} has no </body> for the app's script`);
  fs.writeFileSync(path.join(staging, 'index.html'), out.join('\n'));
  run('mdbook', ['build', path.join(root, 'docs', 'book'), '-d', path.join(staging, 'book')]);
  // The theme's page for a missing address resolves its files from the site's root: from the book's.
  const missing = path.join(staging, 'book', '404.html');
  if (fs.existsSync(missing)) fs.writeFileSync(missing, fs.readFileSync(missing, 'utf8').replace('<base href="/">', `<base href="${base}book/">`));
  // The theme's table of contents for readers without JavaScript has no title (axe-core).
  const toc = path.join(staging, 'book', 'toc.html');
  if (fs.existsSync(toc)) {
    const text = fs.readFileSync(toc, 'utf8');
    if (!/<title>/.test(text)) fs.writeFileSync(toc, text.replace(/<head>/, '<head>\n        <title>Contents — Training Lab</title>'));
  }

  fs.rmSync(dist, { recursive: true, force: true });
  fs.renameSync(staging, dist);
  console.log(`build-app: wrote ${path.relative(root, dist) || dist} (${profile}, served under ${base})`);
}

/** The script that starts the app: the glue, then the wasm (both preloaded in the head). */
function starter(base, js, bin) {
  return [
    '',
    '    <script type="module">',
    `      import init from '${base}${js}';`,
    `      await init({ module_or_path: '${base}${bin}' });`,
    '    </script>',
  ].join('\n');
}

try {
  build(parseArgs(process.argv.slice(2)));
} catch (e) {
  console.error(`build-app: ${e.message}`);
  process.exit(1);
}
