// Serves the built app (dist/) on 127.0.0.1: the server of `scripts/run.sh` and of the browser
// tests (e2e/harness.mjs), node's own http and nothing else.
//
//   node scripts/serve.mjs [DIR] [PORT]
import http from 'node:http';
import https from 'node:https';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
  '.bin': 'application/octet-stream',
  // The data slices: the page unpacks them itself, so no Content-Encoding.
  '.gz': 'application/gzip',
};

/** Serves `dir` on 127.0.0.1 (`port`, or an ephemeral one) (resolves to { url, close }) with the COOP/COEP
 *  headers that make its pages cross-origin isolated (SharedArrayBuffer, so multi-threaded Wasm
 *  such as jax-js's), as `scripts/run.sh` serves the app; `isolated: false` serves without them,
 *  as a course page that embeds a lab may. `plain: true` serves as a plain static host does (a
 *  university web space, GitHub Pages): no fallback to the app for unknown paths, and a folder
 *  asked for without its slash redirected to it. `gzip: true` serves as most static hosts do:
 *  text and wasm compressed for a client that accepts it, with an ETag and Last-Modified (and 304
 *  for a copy still current); `sent(path, bytes)` is told each response body's size
 *  on the wire. `tls: { cert, key }` (PEM) serves HTTPS, as a course site is served. */
export function serve(dir = path.join(root, 'dist'), { isolated = true, plain = false, gzip = false, sent = null, port = 0, tls = null } = {}) {
  const handler = (req, res) => {
    const asked = new URL(req.url, 'http://x');
    const clean = decodeURIComponent(asked.pathname);
    let file = path.join(dir, clean);
    if (!file.startsWith(dir)) { res.writeHead(403).end(); return; }
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) {
      if (plain && !clean.endsWith('/')) {
        res.writeHead(301, { location: `${asked.pathname}/${asked.search}` }).end();
        return;
      }
      file = path.join(file, 'index.html');
    }
    // Routes such as /bench are pages of the single-page app.
    if (!plain && !fs.existsSync(file) && !path.extname(file)) file = path.join(dir, 'index.html');
    if (!fs.existsSync(file)) { res.writeHead(404).end('not found'); return; }
    // Validators, as static hosts send them: a cached copy is revalidated for a few bytes.
    const stat = fs.statSync(file);
    const etag = `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
    if (gzip && req.headers['if-none-match'] === etag) {
      if (sent) sent(clean, 0);
      res.writeHead(304, { etag }).end();
      return;
    }
    const isolation = isolated
      ? { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' }
      : {};
    const type = MIME[path.extname(file)] || 'application/octet-stream';
    let body = fs.readFileSync(file);
    const encoding = {};
    if (gzip && /gzip/.test(req.headers['accept-encoding'] || '') && /text|javascript|json|wasm/.test(type)) {
      body = zlib.gzipSync(body);
      encoding['content-encoding'] = 'gzip';
    }
    if (sent) sent(clean, body.length);
    const validators = gzip ? { etag, 'last-modified': stat.mtime.toUTCString() } : {};
    res.writeHead(200, { 'content-type': type, ...encoding, ...validators, ...isolation });
    res.end(body);
  };
  const server = tls ? https.createServer({ cert: tls.cert, key: tls.key }, handler) : http.createServer(handler);
  return new Promise((resolve) => {
    server.listen(port, '127.0.0.1', () => {
      const { port } = server.address();
      const scheme = tls ? 'https' : 'http';
      resolve({ url: `${scheme}://127.0.0.1:${port}/`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

// Run as a script: serve DIR (dist/) on PORT until stopped.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = path.resolve(process.argv[2] || path.join(root, 'dist'));
  const port = Number(process.argv[3] || 8080);
  if (!fs.existsSync(path.join(dir, 'index.html'))) {
    console.error(`serve: ${dir} holds no index.html (build it first: node scripts/build-app.mjs)`);
    process.exit(1);
  }
  serve(dir, { port }).then(({ url }) => console.log(`serving ${dir} at ${url}`));
}
