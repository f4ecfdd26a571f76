/**
 * Sends a request to a provider and hands back its answer: the status and headers once
 * they arrive, then the body whole (`text`) or chunk by chunk as it streams (`chunks`).
 * Built on undici's dispatcher with a handler of our own (no Readable stream, promise
 * chain or AbortSignal per request: the answer's bytes arrive in callbacks), in the
 * upstream's keep-alive agent: a team's connections use the outbound guard's, whose
 * connects are checked (@spendgate/store outbound/outbound-url.ts); the operator's own accounts use
 * `operatorAgent` (providers/operator-upstreams.ts). Redirects are never followed.
 *
 * Failures are typed: a provider that cannot be reached or cuts its answer is 502, one
 * that does not answer within the timeout 504 — the original error kept as the cause;
 * an address the guard refuses keeps its own error (403).
 */

import { AppError, UpstreamError } from '@spendgate/core';
import type { Dispatcher } from 'undici';

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Chunks a stream may have waiting for the caller before the provider's socket is paused. */
const HIGH_WATER_CHUNKS = 16;

function upstreamError(error: Error): AppError {
  if (error instanceof AppError) return error;
  const code = (error as { code?: string }).code ?? '';
  if (TIMEOUT_CODES.has(code)) return new UpstreamError(504, 'The provider did not answer in time', error);
  return new UpstreamError(502, 'The provider could not be reached', error);
}

/** One provider answer, filled by undici's callbacks and read once by the relay. */
export class UpstreamResponse implements Dispatcher.DispatchHandler {
  statusCode = 0;
  headers: Record<string, string | string[] | undefined> = {};
  #controller: Dispatcher.DispatchController | undefined;
  #head: { resolve: (response: UpstreamResponse) => void; reject: (error: Error) => void } | undefined;
  #chunks: Buffer[] = [];
  #ended = false;
  #failure: AppError | undefined;
  #discarding = false;
  /** A stream is being read chunk by chunk: pause the provider while the caller lags. */
  #streaming = false;
  /** Wakes the reader waiting for more of the body. */
  #wake: (() => void) | undefined;

  /** `resolve` is called once the head arrives; `reject` if the exchange fails before. */
  constructor(resolve: (response: UpstreamResponse) => void, reject: (error: Error) => void) {
    this.#head = { resolve, reject };
  }

  onRequestStart(controller: Dispatcher.DispatchController) {
    this.#controller = controller;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>) {
    this.statusCode = statusCode;
    this.headers = headers;
    this.#head?.resolve(this);
    this.#head = undefined;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer) {
    if (this.#discarding) return;
    this.#chunks.push(chunk);
    if (this.#streaming && this.#chunks.length >= HIGH_WATER_CHUNKS) controller.pause();
    this.#notify();
  }

  onResponseEnd() {
    this.#ended = true;
    this.#notify();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error) {
    this.#failure = upstreamError(error);
    if (this.#head) {
      this.#head.reject(this.#failure);
      this.#head = undefined;
    }
    this.#notify();
  }

  #notify() {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #more(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve;
    });
  }

  /** The whole body. Rejects with an UpstreamError if the provider cuts it. */
  async bytes(): Promise<Buffer> {
    while (!this.#ended) {
      if (this.#failure) throw this.#failure;
      await this.#more();
    }
    const chunks = this.#chunks;
    this.#chunks = [];
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  }

  /**
   * The body as it arrives: what arrived together comes as one chunk. Throws an
   * UpstreamError if the provider cuts it (or `abort` was called).
   */
  async *chunks(): AsyncGenerator<Buffer> {
    this.#streaming = true;
    for (;;) {
      if (this.#chunks.length > 0) {
        const ready = this.#chunks;
        this.#chunks = [];
        if (this.#controller?.paused) this.#controller.resume();
        yield ready.length === 1 ? ready[0]! : Buffer.concat(ready);
        continue;
      }
      if (this.#ended) return;
      if (this.#failure) throw this.#failure;
      await this.#more();
    }
  }

  /** The whole body has arrived and been handed out: the chunk just read was the last. */
  get complete(): boolean {
    return this.#ended && this.#chunks.length === 0;
  }

  /** Discards the body unread; the connection goes back to the pool once it has arrived. */
  dump() {
    this.#discarding = true;
    this.#chunks = [];
    if (this.#controller?.paused) this.#controller.resume();
  }

  /** Ends the exchange now (the caller left): the provider's connection is closed. */
  abort() {
    this.#controller?.abort(new Error('the caller went away'));
  }
}

/** Sends one POST; resolves with the answer once its status and headers are in. */
export function sendUpstream(
  url: string,
  init: { headers: Record<string, string>; body: string | Buffer; timeoutMs: number; dispatcher: Dispatcher },
): Promise<UpstreamResponse> {
  const pathStart = url.indexOf('/', url.indexOf('//') + 2);
  return new Promise((resolve, reject) => {
    const response = new UpstreamResponse(resolve, reject);
    try {
      init.dispatcher.dispatch(
        {
          origin: pathStart === -1 ? url : url.slice(0, pathStart),
          path: pathStart === -1 ? '/' : url.slice(pathStart),
          method: 'POST',
          headers: init.headers,
          body: init.body,
          headersTimeout: init.timeoutMs,
          bodyTimeout: init.timeoutMs,
        },
        response,
      );
    } catch (error) {
      reject(upstreamError(error as Error));
    }
  });
}
