// The PGlite worker thread (started by pglite-thread.ts): owns the one PGlite instance
// and answers each request message in turn — open, query, dump, close.
import { parentPort } from 'node:worker_threads';
import { PGlite, types } from '@electric-sql/pglite';
import type { ErrorFields, PGliteReply, PGliteRequest } from './pglite-thread.ts';

const port = parentPort!;
let client: PGlite | undefined;

function open(): PGlite {
  if (!client) throw new Error('PGlite is not open');
  return client;
}

async function answer(request: PGliteRequest): Promise<unknown> {
  switch (request.kind) {
    case 'open':
      client = await PGlite.create({
        dataDir: request.dataDir,
        loadDataDir: request.loadDataDir,
        parsers: { [types.INT8]: (value: string) => BigInt(value) },
      });
      return null;
    case 'query': {
      const { rows, affectedRows } = await open().query(request.sql, request.params as unknown[]);
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

/** The error's message and its string/number fields: PostgreSQL's code, constraint, detail… */
function errorFields(error: unknown): ErrorFields {
  if (!(error instanceof Error)) return { message: String(error) };
  const fields: ErrorFields = { message: error.message };
  for (const [key, value] of Object.entries(error)) {
    if (typeof value === 'string' || typeof value === 'number') fields[key] = value;
  }
  return fields;
}

port.on('message', async ({ id, ...request }: PGliteRequest & { id: number }) => {
  try {
    port.postMessage({ id, ok: true, result: await answer(request as PGliteRequest) } satisfies PGliteReply);
  } catch (error) {
    port.postMessage({ id, ok: false, error: errorFields(error) } satisfies PGliteReply);
  }
  if (request.kind === 'close' && !client) port.close();
});
