// The built site carries a gzip and a Brotli copy of every text and wasm
// file (scripts/precompress.mjs, run by Trunk after each build), each the
// same bytes as its original, for hosts that serve precompressed files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { DIST } from './harness.mjs';

const ORIGINALS = /\.(html|js|css|wasm)$/;

test('every page, script, stylesheet and wasm of the build has .gz and .br copies of the same bytes', async () => {
  const names = await readdir(DIST, { recursive: true });
  const originals = names.filter((name) => ORIGINALS.test(name));
  assert.ok(originals.length >= 15, `${originals.length} files`);
  for (const name of originals) {
    const bytes = await readFile(path.join(DIST, name));
    assert.deepEqual(gunzipSync(await readFile(path.join(DIST, `${name}.gz`))), bytes, `${name}.gz`);
    assert.deepEqual(brotliDecompressSync(await readFile(path.join(DIST, `${name}.br`))), bytes, `${name}.br`);
  }
  // No copy is left without its original (a renamed file's old copies would be served stale).
  for (const copy of names.filter((name) => /\.(gz|br)$/.test(name))) {
    assert.ok(names.includes(copy.replace(/\.(gz|br)$/, '')), `${copy} has no original`);
  }
});
