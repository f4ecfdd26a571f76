// @ts-check
// The PGlite database process (forked by pglite-process.ts): owns the one PGlite
// instance and answers each request message from its parent — open, query, dump. Plain
// JavaScript, so the process runs on Node alone, without a TypeScript loader.
//
// It lives exactly as long as its IPC channel: when the parent disconnects (its
// close(), or its exit — even by SIGKILL) it closes PGlite and exits. It ignores SIGINT
// and SIGTERM, which reach it together with its parent (Ctrl-C in a terminal, a service
// manager stopping the group): the parent still needs the database while it shuts down
// (it writes the usage events it holds), and closes it last.
import { PGlite, types } from '@electric-sql/pglite';

/** @typedef {import('./pglite-process.ts').PGliteRequest} PGliteRequest */
/** @typedef {import('./pglite-process.ts').PGliteReply} PGliteReply */
/** @typedef {import('./pglite-process.ts').ErrorFields} ErrorFields */

if (!process.send) throw new Error('pglite-server.mjs runs as a child process with an IPC channel (see pglite-process.ts)');

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
        // V8 serialisation carries bytes, not Blobs: the dump arrives as a Uint8Array.
        loadDataDir: request.loadDataDir && new Blob([request.loadDataDir]),
        startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`],
        parsers: { [types.INT8]: (/** @type {string} */ value) => BigInt(value) },
      });
      return null;
    case 'query': {
      const { rows, affectedRows } = await open().query(request.sql, [...request.params]);
      return { rows, affectedRows };
    }
    case 'dump':
      return new Uint8Array(await (await open().dumpDataDir('none')).arrayBuffer());
  }
}

/**
 * Sends a message to the parent. A request can still be running when the parent goes
 * away (or the channel breaks mid-write): its answer has nowhere to go, and is dropped.
 * @param {PGliteReply} reply
 */
function send(reply) {
  if (process.connected) process.send?.(reply, () => {});
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

process.on('message', async (/** @type {PGliteRequest & { id: number }} */ { id, ...request }) => {
  /** @type {PGliteReply} */
  let reply;
  try {
    reply = { id, ok: true, result: await answer(/** @type {PGliteRequest} */ (request)) };
  } catch (error) {
    reply = { id, ok: false, error: errorFields(error) };
  }
  send(reply);
});

process.once('disconnect', async () => {
  try {
    await client?.close();
    process.exit(0);
  } catch (error) {
    console.error('PGlite did not close cleanly:', error);
    process.exit(1);
  }
});

process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});

// Request 0 is the start, answered once the listener above is in place: the parent
// sends nothing before it, since a message reaching an ES-module child before it
// listens can be lost (nodejs/node#37782).
send({ id: 0, ok: true, result: null });
