/**
 * Bench process: a whole Spendgate built with `buildApp(config)` as `npm start` runs it
 * (gateway, API, in the embedded mode also the meter worker), configured from the
 * environment like any deployment, LOG_LEVEL=silent, listening on 127.0.0.1:0.
 * Embedded mode (no DATABASE_URL): a fresh PGlite in a temporary DATA_DIR, removed on
 * close; PGlite runs in a child process of this one. Scaled mode: DATABASE_URL +
 * REDIS_URL, keys under BENCH_REDIS_PREFIX.
 *
 * Commands: `drain` waits until every queued usage event is written and answers how
 * long that took; `mailed-code {to}` answers the one-time code in the newest message to
 * that address (from the mail outbox: the log is silent); `database-pid` answers the
 * process id of the embedded PGlite process (null in the scaled mode), whose CPU and
 * memory are not in this process's `stats`;
 * `profile-start` / `profile-stop {path}` record a CPU profile of this process (V8's
 * sampling profiler through node:inspector) into a .cpuprofile file; `runtime` answers
 * the JavaScript heap's make-up now and the event loop's delays since the last
 * `runtime` (what the gateway's own stalls add to a request's latency).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { boundHeapGrowth, buildApp } from '@spendgate/gateway';
import { listOutboxMail, loadConfig } from '@spendgate/store';
import { beginChild } from '../child-side.ts';
import type { GatewayRuntime } from '../protocol.ts';

const child = beginChild();
const embedded = !process.env.DATABASE_URL;
const dataDir = embedded ? await mkdtemp(path.join(tmpdir(), 'spendgate-bench-')) : undefined;
if (dataDir) child.onClose(() => rm(dataDir, { recursive: true, force: true }));
const config = await loadConfig({
  ...process.env,
  ...(dataDir ? { DATA_DIR: dataDir } : {}),
  LOG_LEVEL: 'silent',
  HOST: '127.0.0.1',
  PORT: '0',
  CONSOLE_DIR: path.join(tmpdir(), 'spendgate-bench-no-console'),
});
boundHeapGrowth();
const app = await buildApp(config, { redisPrefix: process.env.BENCH_REDIS_PREFIX });
child.onClose(() => app.close());
const url = await app.listen({ port: 0, host: '127.0.0.1' });

let profiler: Session | undefined;
/** The delay monitor's timer period; each sample is that period plus how late it ran. */
const LOOP_DELAY_RESOLUTION_MS = 10;
const loopDelay = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
loopDelay.enable();

child.ready({
  url,
  commands: {
    drain: async () => {
      const startedAt = performance.now();
      await app.runtime.metering.settled();
      await app.runtime.stores.queue.drain();
      return performance.now() - startedAt;
    },
    'mailed-code': async (args) => {
      const { to } = args as { to: string };
      const newest = (await listOutboxMail(app.runtime.stores.sql.db, to)).at(-1);
      const code = newest && /^\s+(\d{6})\s*$/m.exec(newest.text_body)?.[1];
      if (!code) throw new Error(`no code mailed to ${to}`);
      return code;
    },
    'database-pid': () => app.runtime.stores.sql.pid ?? null,
    runtime: (): GatewayRuntime => {
      const { heapUsed, heapTotal, external } = process.memoryUsage();
      const lateMs = (ns: number) => Math.max(0, ns / 1e6 - LOOP_DELAY_RESOLUTION_MS);
      const delays = { p99Ms: lateMs(loopDelay.percentile(99)), maxMs: lateMs(loopDelay.max) };
      loopDelay.reset();
      return { heapUsedBytes: heapUsed, heapTotalBytes: heapTotal, externalBytes: external, loopDelay: delays };
    },
    'profile-start': async () => {
      profiler = new Session();
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.setSamplingInterval', { interval: 250 });
      await profiler.post('Profiler.start');
      return null;
    },
    'profile-stop': async (args) => {
      if (!profiler) throw new Error('no profile is being recorded');
      const { profile } = await profiler.post('Profiler.stop');
      profiler.disconnect();
      profiler = undefined;
      await writeFile((args as { path: string }).path, JSON.stringify(profile));
      return null;
    },
  },
});
