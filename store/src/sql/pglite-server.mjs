// @ts-check
// The PGlite database process (forked by pglite-process.ts): owns the one PGlite
// instance and answers each request message from its parent — open, query, dump. Plain
// JavaScript, so the process runs on Node alone, without a TypeScript loader.
//
// Each distinct statement text is prepared once, as a named statement of PostgreSQL's
// extended protocol, and then only bound and executed: PGlite's own query() parses and
// plans every statement again, which costs more than running most of ours (inserting
// one usage event: ~1.7 ms of CPU here against ~3.8, on a 2-core cloud machine). The
// most recently used are kept prepared.
//
// It lives exactly as long as its IPC channel: when the parent disconnects (its
// close(), or its exit — even by SIGKILL) it closes PGlite and exits. It ignores SIGINT
// and SIGTERM, which reach it together with its parent (Ctrl-C in a terminal, a service
// manager stopping the group): the parent still needs the database while it shuts down
// (it writes the usage events it holds), and closes it last.
import { PGlite, parse, protocol, types } from '@electric-sql/pglite';

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

/** Statements kept prepared; past this many, the least recently used is closed. */
const PREPARED_STATEMENTS = 256;

function open() {
  if (!client) throw new Error('PGlite is not open');
  return client;
}

const { serialize } = protocol;

/** @param {Uint8Array[]} messages */
function concat(...messages) {
  const bytes = new Uint8Array(messages.reduce((size, message) => size + message.length, 0));
  let at = 0;
  for (const message of messages) {
    bytes.set(message, at);
    at += message.length;
  }
  return bytes;
}

/**
 * Prepared statements by SQL text, least recently used first.
 * @type {Map<string, { name: string; paramTypes: number[] }>}
 */
const statements = new Map();
let statementsPrepared = 0;

/**
 * The named statement for this text, prepared now if it is not yet.
 * @param {PGlite} db
 * @param {string} sql
 */
async function prepared(db, sql) {
  const known = statements.get(sql);
  if (known) {
    statements.delete(sql);
    statements.set(sql, known);
    return known;
  }
  statementsPrepared += 1;
  const name = `s${statementsPrepared}`;
  const { messages } = await db.execProtocol(concat(serialize.parse({ name, text: sql }), serialize.describe({ type: 'S', name }), serialize.sync()));
  const statement = { name, paramTypes: parse.parseDescribeStatementResults(messages) };
  statements.set(sql, statement);
  if (statements.size > PREPARED_STATEMENTS) {
    const [oldestSql, oldest] = /** @type {[string, { name: string }]} */ (statements.entries().next().value);
    statements.delete(oldestSql);
    await db.execProtocol(concat(serialize.close({ type: 'S', name: oldest.name }), serialize.sync()));
  }
  return statement;
}

/**
 * Runs one statement, prepared; parameters are sent as text, serialised by their type
 * as PGlite's query() does. A statement whose cached plan no longer fits its tables (a
 * migration changed them) is prepared again.
 * @param {string} sql
 * @param {unknown[]} params
 * @returns {Promise<{ rows: unknown[]; affectedRows?: number }>}
 */
async function query(sql, params) {
  const db = open();
  for (let attempt = 1; ; attempt++) {
    const { name, paramTypes } = await prepared(db, sql);
    const values = params.map((value, index) => {
      if (value === null || value === undefined) return null;
      const serializer = db.serializers[/** @type {number} */ (paramTypes[index])];
      return serializer ? serializer(value) : String(value);
    });
    try {
      const { messages } = await db.execProtocol(
        concat(serialize.bind({ statement: name, values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()),
      );
      const [result] = parse.parseResults(messages, db.parsers);
      return { rows: result?.rows ?? [], affectedRows: result?.affectedRows };
    } catch (error) {
      const stale = /** @type {{ code?: string }} */ (error).code === '0A000' && String(/** @type {Error} */ (error).message).startsWith('cached plan must not change result type');
      if (!stale || attempt > 1) throw error;
      statements.delete(sql);
      await db.execProtocol(concat(serialize.close({ type: 'S', name }), serialize.sync()));
    }
  }
}

/** One statement at a time, in the order they came: a named statement is bound and executed in one piece. */
let queue = Promise.resolve();

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
      const result = queue.then(() => query(request.sql, [...request.params]));
      queue = result.then(
        () => undefined,
        () => undefined,
      );
      return result;
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
