/**
 * Bench process: the load generator. Runs autocannon (closed loop: each connection
 * sends its next request when the previous answer is complete, no pipelining) against
 * one 127.0.0.1 URL for a bounded time, and answers counts and latency percentiles
 * computed from every 2xx response's exact duration.
 */
import autocannon from 'autocannon';
import { beginChild } from '../child-side.ts';
import type { LoadResult, LoadRun } from '../load-types.ts';
import { cpuPercent, processStats } from '../protocol.ts';
import { Samples } from '../stats.ts';

const child = beginChild();
const MAX_DURATION_S = 600;
let current: autocannon.Instance | undefined;

function assertLoopback(url: string): void {
  const { hostname } = new URL(url);
  if (hostname !== '127.0.0.1' && hostname !== 'localhost' && hostname !== '[::1]') {
    throw new Error(`the bench only sends load to this machine's loopback, not ${hostname}`);
  }
}

async function runLoad(run: LoadRun): Promise<LoadResult> {
  assertLoopback(run.url);
  if (!(run.durationS > 0 && run.durationS <= MAX_DURATION_S)) throw new Error(`duration must be in (0, ${MAX_DURATION_S}] s`);
  if (current) throw new Error('a load run is already going');
  const latencies = new Samples();
  const before = processStats();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: run.url,
        method: run.method,
        headers: run.headers,
        body: run.body,
        connections: run.connections,
        duration: run.durationS,
        pipelining: 1,
        timeout: 10,
        ...(run.expectBody === undefined ? {} : { expectBody: run.expectBody }),
      },
      (error, finished) => (error ? reject(error) : resolve(finished)),
    );
    current = instance;
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  }).finally(() => {
    current = undefined;
  });
  const after = processStats();
  return {
    elapsedS: (after.atMs - before.atMs) / 1000,
    ok: latencies.length,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    mismatches: result.mismatches,
    latencyMs: latencies.summary(),
    cpuPercent: cpuPercent(before, after),
  };
}

child.onClose(() => current?.stop());
child.ready({ commands: { run: (args) => runLoad(args as LoadRun) } });
