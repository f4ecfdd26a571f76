/**
 * Prompt and response capture, off the data plane's hot path: a request whose team and
 * group both opted in hands its body and answer here after the answer is sent (`keep`
 * returns at once). The texts are cut at `CAPTURE_LIMIT_BYTES` each, redacted on a thread
 * of their own (capture-redactor.mjs: secrets, e-mail addresses, card numbers, the
 * team's patterns), sealed with the team's data key (AES-256-GCM, bound to team and
 * request id) and written in batches; nothing in plaintext leaves the process, reaches a
 * log or a job payload. Capture never slows or fails a request: past `MAX_WAITING`
 * captures waiting, or when redaction takes over `REDACTION_BUDGET_MS`, a capture is
 * dropped (counted), never stored unredacted.
 */
import { Worker } from 'node:worker_threads';
import type { Envelope, SqlStore } from '@spendgate/store';
import { insertPromptCaptures, type NewPromptCapture } from '@spendgate/store';

/** Bytes of the request body, and of the answer, a capture keeps; the rest is cut (and said to be). */
export const CAPTURE_LIMIT_BYTES = 64 * 1024;
/** Captures waiting for redaction or their write; past this, new ones are dropped. */
const MAX_WAITING = 512;
/** A redaction taking longer than this (the thread is stuck) ends the thread; its captures are dropped. */
const REDACTION_BUDGET_MS = 5_000;
const BATCH_WAIT_MS = 200;
const MAX_BATCH = 100;
const DAY_MS = 86_400_000;

/** What a principal carries when its team and group capture: the data key and the team's rules. */
export interface CaptureTerms {
  wrappedDataKey: Uint8Array;
  keyVersion: number;
  retentionDays: number;
  patterns: readonly string[];
}

/** What one request leaves to capture. */
export interface CapturedExchange {
  requestId: string;
  teamId: string;
  groupId: string;
  at: Date;
  /** The body as the caller sent it. */
  requestBody: Uint8Array;
  /** The answer: the provider's body, or a stream's assembled text. */
  response: string;
  streamed: boolean;
}

/** What a stored capture holds once opened (the JSON inside the seal). */
export interface CaptureContent {
  request: { text: string; bytes: number; truncated: boolean };
  response: { text: string; bytes: number; truncated: boolean; streamed: boolean };
  redactions: number;
}

/** The first `limit` bytes of UTF-8 as text (a character cut in two is dropped), and whether anything was cut. */
function cut(bytes: Uint8Array, limit: number): { text: string; bytes: number; truncated: boolean } {
  if (bytes.length <= limit) return { text: Buffer.from(bytes).toString('utf8'), bytes: bytes.length, truncated: false };
  let end = limit;
  // Back off continuation bytes (10xxxxxx) so no character is split.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return { text: Buffer.from(bytes.subarray(0, end)).toString('utf8'), bytes: bytes.length, truncated: true };
}

interface Redaction {
  resolve: (answer: { texts: string[] | null; redactions: number }) => void;
  startedAt: number;
}

/** The redaction thread: started by the first capture, ended and started again when a redaction overruns. */
function createRedactor() {
  let thread: { worker: Worker; pending: Map<number, Redaction>; watchdog: NodeJS.Timeout } | undefined;
  let nextId = 0;

  const start = (): NonNullable<typeof thread> => {
    const worker = new Worker(new URL('./capture-redactor.mjs', import.meta.url));
    worker.unref();
    const pending = new Map<number, Redaction>();
    const fail = () => {
      if (thread?.worker === worker) {
        clearInterval(thread.watchdog);
        thread = undefined;
      }
      for (const redaction of pending.values()) redaction.resolve({ texts: null, redactions: 0 });
      pending.clear();
    };
    const watchdog = setInterval(() => {
      const oldest = pending.values().next().value;
      if (oldest && Date.now() - oldest.startedAt > REDACTION_BUDGET_MS) {
        fail();
        void worker.terminate();
      }
    }, 1_000);
    watchdog.unref();
    worker.on('message', ({ id, texts, redactions }: { id: number; texts: string[] | null; redactions: number }) => {
      pending.get(id)?.resolve({ texts, redactions });
      pending.delete(id);
    });
    worker.on('error', fail);
    worker.on('exit', fail);
    return { worker, pending, watchdog };
  };

  return {
    /** The texts redacted, or null when they could not be (the capture is then dropped). */
    redact(texts: string[], patterns: readonly string[]): Promise<{ texts: string[] | null; redactions: number }> {
      thread ??= start();
      const id = nextId++;
      const { worker, pending } = thread;
      return new Promise((resolve) => {
        pending.set(id, { resolve, startedAt: Date.now() });
        worker.postMessage({ id, texts, patterns });
      });
    },
    async close() {
      if (!thread) return;
      clearInterval(thread.watchdog);
      await thread.worker.terminate();
      thread = undefined;
    },
  };
}

export function createPromptCapture(deps: { sql: SqlStore; envelope: Envelope; log: { warn: (obj: object, msg: string) => void; error: (obj: object, msg: string) => void } }) {
  const redactor = createRedactor();
  let waiting = 0;
  let dropped = 0;
  const inFlight = new Set<Promise<void>>();
  let batch: { rows: NewPromptCapture[]; timer: NodeJS.Timeout } | undefined;

  function track(work: Promise<void>): void {
    const done = work.finally(() => inFlight.delete(done));
    inFlight.add(done);
  }

  function drop(reason: string, requestId: string): void {
    dropped++;
    deps.log.warn({ requestId, dropped }, `prompt capture dropped: ${reason}`);
  }

  async function write(rows: NewPromptCapture[]): Promise<void> {
    try {
      await insertPromptCaptures(deps.sql.db, rows);
    } catch (error) {
      dropped += rows.length;
      deps.log.error({ err: error, captures: rows.length }, 'prompt captures could not be stored');
    } finally {
      waiting -= rows.length;
    }
  }

  function flush(): void {
    if (!batch) return;
    clearTimeout(batch.timer);
    const { rows } = batch;
    batch = undefined;
    track(write(rows));
  }

  async function process(exchange: CapturedExchange, terms: CaptureTerms): Promise<void> {
    const request = cut(exchange.requestBody, CAPTURE_LIMIT_BYTES);
    const response = cut(Buffer.from(exchange.response, 'utf8'), CAPTURE_LIMIT_BYTES);
    const redacted = await redactor.redact([request.text, response.text], terms.patterns);
    if (redacted.texts === null) {
      waiting--;
      drop('redaction failed or overran its time', exchange.requestId);
      return;
    }
    const content: CaptureContent = {
      request: { ...request, text: redacted.texts[0]! },
      response: { ...response, text: redacted.texts[1]!, streamed: exchange.streamed },
      redactions: redacted.redactions,
    };
    const sealed = deps.envelope.sealCapture(
      terms.wrappedDataKey,
      { teamId: exchange.teamId, requestId: exchange.requestId, version: terms.keyVersion },
      JSON.stringify(content),
    );
    batch ??= { rows: [], timer: setTimeout(flush, BATCH_WAIT_MS) };
    batch.rows.push({
      request_id: exchange.requestId,
      team_id: exchange.teamId,
      group_id: exchange.groupId,
      captured_at: exchange.at,
      expires_at: new Date(exchange.at.getTime() + terms.retentionDays * DAY_MS),
      key_version: terms.keyVersion,
      sealed,
    });
    if (batch.rows.length >= MAX_BATCH) flush();
  }

  return {
    /** Queues one exchange for capture and returns at once; never throws. */
    keep(exchange: CapturedExchange, terms: CaptureTerms): void {
      if (waiting >= MAX_WAITING) {
        drop('too many captures waiting', exchange.requestId);
        return;
      }
      waiting++;
      track(
        process(exchange, terms).catch((error: unknown) => {
          waiting--;
          dropped++;
          deps.log.error({ err: error, requestId: exchange.requestId }, 'prompt capture failed');
        }),
      );
    },

    /** Captures dropped so far (bench and tests read it). */
    get dropped() {
      return dropped;
    },

    /** Resolves once every capture kept so far is stored or dropped. */
    async settled(): Promise<void> {
      while (inFlight.size > 0 || batch) {
        flush();
        await Promise.all(inFlight);
      }
    },

    async close(): Promise<void> {
      await this.settled();
      await redactor.close();
    },
  };
}

export type PromptCapture = ReturnType<typeof createPromptCapture>;
