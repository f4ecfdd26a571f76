// @ts-check
// Builds a server entry point (the gateway's or the worker's) into one plain-JavaScript
// ES module under dist/, so `npm start` and `npm run worker` run on Node alone: no
// TypeScript loader in the process (under tsx its hooks thread and source maps cost
// ~65 MiB of RSS). Workspace packages are bundled; npm packages stay imports.
// PGlite's database-process script, the tokenizer's thread (plain JavaScript), the
// Redis stores' Lua scripts and the demo's workload trace are copied beside the bundle,
// where they are looked for.
//
//   node gateway/bundle.mjs gateway|worker
import { copyFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The real workload the demo team's usage is shaped by (worker/src/demo/workload.ts). */
const DEMO_TRACE = 'azure-llm-inference-2023-conv.csv';

/** The server entry points `npm start` and `npm run worker` run. */
export const SERVER_ENTRIES = {
  gateway: path.join(ROOT, 'gateway/src/main.ts'),
  worker: path.join(ROOT, 'worker/src/main.ts'),
};

/** @type {import('esbuild').Plugin} */
const npmPackagesExternal = {
  name: 'npm-packages-external',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@spendgate/') ? undefined : { path: args.path, external: true },
    );
  },
};

/**
 * Copies every .lua file under store/src into `outdir`: a module reads its scripts beside
 * itself (`new URL('./x.lua', import.meta.url)`), which in a bundle is the bundle's folder,
 * so their names are unique across store/src.
 * @param {string} outdir
 */
async function copyLuaScripts(outdir) {
  const storeSources = path.join(ROOT, 'store/src');
  const scripts = (await readdir(storeSources, { recursive: true })).filter((file) => file.endsWith('.lua'));
  const names = scripts.map((file) => path.basename(file));
  const repeated = names.filter((name, index) => names.indexOf(name) !== index);
  if (repeated.length > 0) throw new Error(`Lua scripts share a name, so one bundle folder cannot hold them: ${repeated.join(', ')}`);
  await Promise.all(scripts.map((file) => copyFile(path.join(storeSources, file), path.join(outdir, path.basename(file)))));
}

/**
 * Bundles each entry (a TypeScript module) into `outdir/<name>.mjs` with a linked source
 * map (`node --enable-source-maps` maps stack traces back to the sources).
 * @param {Record<string, string>} entries name → entry module
 * @param {string} outdir
 */
export async function bundleServer(entries, outdir) {
  await build({
    entryPoints: entries,
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
    plugins: [npmPackagesExternal],
  });
  await copyFile(path.join(ROOT, 'store/src/sql/pglite-server.mjs'), path.join(outdir, 'pglite-server.mjs'));
  await copyFile(path.join(ROOT, 'gateway/src/proxy/tokenizer-worker.mjs'), path.join(outdir, 'tokenizer-worker.mjs'));
  await copyFile(path.join(ROOT, 'gateway/src/capture/capture-redactor.mjs'), path.join(outdir, 'capture-redactor.mjs'));
  await copyFile(path.join(ROOT, 'worker/src/demo', DEMO_TRACE), path.join(outdir, DEMO_TRACE));
  await copyLuaScripts(outdir);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const names = process.argv.slice(2);
  const unknown = names.filter((name) => !(name in SERVER_ENTRIES));
  if (names.length === 0 || unknown.length > 0) {
    console.error(`usage: node gateway/bundle.mjs ${Object.keys(SERVER_ENTRIES).join('|')} …`);
    process.exit(2);
  }
  const entries = Object.fromEntries(Object.entries(SERVER_ENTRIES).filter(([name]) => names.includes(name)));
  await bundleServer(entries, path.join(ROOT, 'dist'));
}
