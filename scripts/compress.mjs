// Writes a Brotli (FILE.br) and a gzip (FILE.gz) copy beside every compressible file of a built
// site, for hosts that serve precompressed files (the recipes of the book's hosting chapter:
// nginx's gzip_static and brotli_static, Apache's rewrite rules, Caddy's `precompressed`). Both
// at their highest settings: they are made once, at build time, and sent to every visitor. A copy
// that would not be smaller is not written. Node's own zlib, nothing else.
//
//   node scripts/compress.mjs DIR [--quick]
//
// --quick (the browser tests' build): Brotli 5 and gzip 6, seconds instead of a minute, for a
// site whose serving is tested, not its size.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

/** What compresses: text, and the app's wasm (already-compressed data slices, fonts and images are left). */
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.wasm', '.json', '.svg', '.txt', '.xml', '.map', '.ttf', '.otf', '.eot']);
/** Below this a response's headers outweigh what compression saves. */
const SMALLEST = 512;

const dir = process.argv[2];
const quick = process.argv.includes('--quick');
if (!dir || !fs.existsSync(dir)) {
  console.error('compress: usage: node scripts/compress.mjs DIR');
  process.exit(2);
}
let files = 0;
let before = 0;
let brotli = 0;
let gzip = 0;
for (const rel of fs.readdirSync(dir, { recursive: true })) {
  const file = path.join(dir, rel);
  if (!COMPRESSIBLE.has(path.extname(file)) || !fs.statSync(file).isFile()) continue;
  const bytes = fs.readFileSync(file);
  if (bytes.length < SMALLEST) continue;
  const br = zlib.brotliCompressSync(bytes, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: quick ? 5 : zlib.constants.BROTLI_MAX_QUALITY,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      [zlib.constants.BROTLI_PARAM_MODE]: path.extname(file) === '.wasm' ? zlib.constants.BROTLI_MODE_GENERIC : zlib.constants.BROTLI_MODE_TEXT,
    },
  });
  const gz = zlib.gzipSync(bytes, { level: quick ? 6 : zlib.constants.Z_BEST_COMPRESSION });
  files += 1;
  before += bytes.length;
  if (br.length < bytes.length) { fs.writeFileSync(`${file}.br`, br); brotli += br.length; } else brotli += bytes.length;
  if (gz.length < bytes.length) { fs.writeFileSync(`${file}.gz`, gz); gzip += gz.length; } else gzip += bytes.length;
}
const mb = (n) => (n / 1e6).toFixed(2);
console.log(`compress: ${files} files, ${mb(before)} MB: Brotli copies ${mb(brotli)} MB, gzip copies ${mb(gzip)} MB`);
