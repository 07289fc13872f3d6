// Writes a gzip (level 9) and a Brotli (quality 11) copy beside every text
// and wasm file of the built site, for hosts that serve precompressed files
// (docs/hosting.md). Trunk runs it after each build, on its staging folder
// (TRUNK_STAGING_DIR), or give the folder: `node scripts/precompress.mjs dist`.
// Uses only Node's own zlib: nothing to install.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';

const COMPRESSED = new Set(['.html', '.js', '.mjs', '.css', '.wasm', '.svg', '.json', '.txt', '.md', '.py', '.go', '.rs', '.java', '.ts']);
/** A bound on the folder's depth (the site nests two levels). */
const DEPTH_MAX = 8;

const root = process.argv[2] ?? process.env.TRUNK_STAGING_DIR;
if (!root) {
  console.error('usage: node scripts/precompress.mjs DIR (or set TRUNK_STAGING_DIR): the built site\'s folder');
  process.exit(2);
}

async function* files(folder, depth) {
  if (depth > DEPTH_MAX) throw new Error(`${folder}: deeper than ${DEPTH_MAX} folders`);
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const at = path.join(folder, entry.name);
    if (entry.isDirectory()) yield* files(at, depth + 1);
    else if (COMPRESSED.has(path.extname(entry.name))) yield at;
  }
}

let count = 0;
for await (const file of files(root, 0)) {
  const bytes = await readFile(file);
  await writeFile(`${file}.gz`, gzipSync(bytes, { level: 9 }));
  const brotli = { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length };
  if (file.endsWith('.wasm')) brotli[constants.BROTLI_PARAM_MODE] = constants.BROTLI_MODE_GENERIC;
  else brotli[constants.BROTLI_PARAM_MODE] = constants.BROTLI_MODE_TEXT;
  await writeFile(`${file}.br`, brotliCompressSync(bytes, { params: brotli }));
  count += 1;
}
console.error(`precompress: ${count} files, each with .gz and .br`);
