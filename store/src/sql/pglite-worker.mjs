// @ts-check
// The PGlite worker thread (started by pglite-thread.ts): owns the one PGlite instance
// and answers each request message in turn — open, query, dump, close. Plain
// JavaScript, so the thread needs no TypeScript loader (under tsx, a worker's loader
// runs on a hooks thread of its own: ~55 MiB more RSS).
import { parentPort } from 'node:worker_threads';
import { PGlite, types } from '@electric-sql/pglite';

/** @typedef {import('./pglite-thread.ts').PGliteRequest} PGliteRequest */
/** @typedef {import('./pglite-thread.ts').PGliteReply} PGliteReply */
/** @typedef {import('./pglite-thread.ts').ErrorFields} ErrorFields */

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);
/** @type {PGlite | undefined} */
let client;

/**
 * PostgreSQL's buffer pool, resident once PGlite starts (PGlite's default, 128MB, is
 * ~120 MiB more RSS). Pages it does not hold are read from the OS page cache.
 */
const SHARED_BUFFERS = '32MB';

function open() {
  if (!client) throw new Error('PGlite is not open');
  return client;
}

/** @param {PGliteRequest} request */
async function answer(request) {
  switch (request.kind) {
    case 'open':
      client = await PGlite.create({
        dataDir: request.dataDir,
        loadDataDir: request.loadDataDir,
        startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`],
        parsers: { [types.INT8]: (/** @type {string} */ value) => BigInt(value) },
      });
      return null;
    case 'query': {
      const { rows, affectedRows } = await open().query(request.sql, [...request.params]);
      return { rows, affectedRows };
    }
    case 'dump':
      return open().dumpDataDir('none');
    case 'close':
      await open().close();
      client = undefined;
      return null;
  }
}

/**
 * The error's message and its string/number fields: PostgreSQL's code, constraint, detail…
 * @param {unknown} error
 * @returns {ErrorFields}
 */
function errorFields(error) {
  if (!(error instanceof Error)) return { message: String(error) };
  /** @type {ErrorFields} */
  const fields = { message: error.message };
  for (const [key, value] of Object.entries(error)) {
    if (typeof value === 'string' || typeof value === 'number') fields[key] = value;
  }
  return fields;
}

port.on('message', async (/** @type {PGliteRequest & { id: number }} */ { id, ...request }) => {
  /** @type {PGliteReply} */
  let reply;
  try {
    reply = { id, ok: true, result: await answer(/** @type {PGliteRequest} */ (request)) };
  } catch (error) {
    reply = { id, ok: false, error: errorFields(error) };
  }
  port.postMessage(reply);
  if (request.kind === 'close' && !client) port.close();
});
