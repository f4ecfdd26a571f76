/**
 * The bench harness: starts every process of a run as its own child (mock upstream,
 * bare proxy, gateway — plus its BullMQ worker in the scaled mode — and the load
 * generator), obtains an issued key through the gateway's API, then measures each cell
 * (format × connections × scenario, closed loop; then format × scenario at a fixed
 * rate; all of them once per round when asked for several): a warm-up, a measured run, each process's CPU and memory over it, and — for
 * the gateway — the time to write the usage events still queued after it. In the
 * embedded mode the gateway's PGlite runs in a process of its own (forked by the
 * gateway, not by the harness): its CPU and memory are measured beside the gateway's.
 * A soak, when asked, follows the gateway's memory under a fixed rate for longer.
 * With `--topology cluster` the gateway scenario goes through the load balancer of a
 * topology of many gateways and workers (src/cluster.ts) instead of one forked gateway.
 * Everything it started is stopped before it returns or throws.
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BenchChild, bundleBenchProcesses, type ProcessName, type StartOptions } from './children.ts';
import { type BenchCluster, CLUSTER_GATEWAYS, CLUSTER_WORKERS, groupRunQueueWaitMs, groupStats, startBenchCluster } from './cluster.ts';
import type { LoadResult, LoadRun } from './load-types.ts';
import { type CpuTimes, machineCpuPercent, readCpuTimes, readProcessesCpuSeconds, readProcessStats, readRunQueueWaitMs } from './machine.ts';
import { type BenchOptions, DEFAULT_OPTIONS, type Scenario } from './options.ts';
import { type SelfTimeSummary, topSelfTime } from './profile.ts';
import { cpuPercent, type GatewayRuntime, type ProcessStats, processStats } from './protocol.ts';
import { meteredRequests, type Provisioned, provisionIssuedKey } from './provision.ts';
import { createScaledServices, type ScaledServices } from './scaled.ts';
import { median } from './stats.ts';
import { ANSWER_BODIES, type Format, requestBody, UPSTREAM_API_KEY } from './workload.ts';

/**
 * A bench child, `pglite`: the embedded gateway's database process (its child, not the
 * harness's), or `haproxy`: the cluster topology's load balancer. In the cluster topology
 * `gateway` and `worker` are all its gateways or workers, summed.
 */
export type MeasuredProcess = ProcessName | 'pglite' | 'haproxy';

/** A process (or group of processes) whose CPU, memory and wait for a core a cell measures. */
interface Watched {
  name: MeasuredProcess;
  stats(): Promise<ProcessStats>;
  runQueueWaitMs(): number | undefined;
}

const watchChild = (child: BenchChild): Watched => ({
  name: child.name,
  stats: () => child.stats(),
  runQueueWaitMs: () => (child.child.pid ? readRunQueueWaitMs(child.child.pid) : undefined),
});

export interface CellResult {
  /** Which round of the run measured it (1 = the first; see `BenchOptions.rounds`). */
  round: number;
  scenario: Scenario;
  format: Format;
  /** Closed loop: requests in flight. Fixed rate: the load generator's connection pool. */
  connections: number;
  /** Fixed-rate cells: the requests per second sent; absent for closed-loop cells. */
  ratePerSec?: number;
  /** 2xx responses per second. */
  reqPerSec: number;
  latencyMs: LoadResult['latencyMs'];
  ttfbMs: LoadResult['ttfbMs'];
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  mismatches: number;
  /** non2xx + errors + mismatches: requests that did not get the expected answer. */
  failed: number;
  /** Each process's CPU over the measured run, % of one core. */
  cpuPercent: Partial<Record<MeasuredProcess, number>>;
  /**
   * How long each process's main thread waited for a core while it had work, % of the
   * run (Linux only): high for a server means the machine's cores, not the server, were
   * the limit.
   */
  runQueueWaitPercent: Partial<Record<MeasuredProcess, number>>;
  /** Each server process's resident memory at the end of the run, MiB. */
  rssMiB: Partial<Record<MeasuredProcess, number>>;
  /**
   * The whole machine over the run, % of one core: busy (everyone), stolen by the
   * hypervisor, and used by processes outside this bench (busy minus the bench's own).
   * Absent where /proc/stat is not available.
   */
  machine?: { busyPercent: number; stealPercent: number; otherPercent: number };
  /**
   * Scaled mode: CPU of this run's PostgreSQL backends and of the Redis server (shared
   * with anyone else using it) over the run, % of one core.
   */
  servicesCpuPercent?: number;
  /**
   * Gateway only: ms until the usage events still queued after the run were written (in
   * the cluster topology: until the primary held as many as the client got 2xx answers).
   */
  meterDrainMs?: number;
  /** Gateway only: its heap at the end of the run and its event loop's delays over it. */
  gatewayRuntime?: GatewayRuntime;
  /** os.loadavg() right after the run (1, 5, 15 min). */
  loadAverageAfter: number[];
}

export interface Ratio {
  round: number;
  format: Format;
  connections: number;
  /** gateway ÷ bare proxy. */
  reqPerSec: number;
  p50: number;
  p99: number;
}

/** At a fixed rate: what the gateway adds to the bare proxy's latency, ms (gateway − bare proxy). */
export interface AddedLatency {
  round: number;
  format: Format;
  ratePerSec: number;
  p50: number;
  p99: number;
  ttfbP50: number;
  ttfbP99: number;
}

/** Over several rounds: the median of each round's comparison, and every round's own (req/s ratio or added p99). */
export interface RoundsSummary {
  ratios: (Omit<Ratio, 'round'> & { reqPerSecByRound: number[] })[];
  addedLatency: (Omit<AddedLatency, 'round'> & { p99ByRound: number[] })[];
}

export interface SoakResult {
  format: Format;
  ratePerSec: number;
  durationS: number;
  /** The gateway's RSS over the soak, from its start; embedded, also its PGlite process's. */
  samples: { atS: number; rssMiB: number; pgliteRssMiB?: number }[];
  startMiB: number;
  endMiB: number;
  maxMiB: number;
  /** Least-squares slope of RSS over the soak after its first fifth (settling), MiB per minute. */
  slopeMiBPerMin: number;
  /** Embedded: the PGlite process's RSS over the soak. */
  pglite?: { startMiB: number; endMiB: number; maxMiB: number };
  load: LoadResult;
}

export interface BenchReport {
  startedAt: string;
  finishedAt: string;
  options: BenchOptions;
  machine: { node: string; cpus: number; cpuModel: string; loadAverageBefore: number[]; loadAverageAfter: number[] };
  cells: CellResult[];
  /** Each round's comparisons. */
  ratios: Ratio[];
  addedLatency: AddedLatency[];
  /** With more than one round: their medians. */
  rounds?: RoundsSummary;
  soak?: SoakResult;
  /** Gateway requests answered 2xx to the client (warm-ups included) vs usage events metered. */
  metering?: { clientOkResponses: number; meteredRequests: number };
  /** Gateway CPU profile per format, when --profile was given. */
  profiles?: { format: Format; files: string[]; summary: SelfTimeSummary }[];
  /** The cluster topology the gateway scenario ran on. */
  cluster?: { gateways: number; workers: number; replica: boolean };
}

export interface BenchHooks {
  /** Progress lines (what is starting, which cell runs). */
  log?: (line: string) => void;
  /** Aborting stops the load and every child, and makes runBench reject. */
  signal?: AbortSignal;
}

const STOP_ORDER: ProcessName[] = ['load', 'gateway', 'worker', 'bare-proxy', 'mock-upstream'];
const GATEWAY_START_TIMEOUT_MS = 120_000;
/** Connections the load generator may open for a fixed-rate run (it opens what the rate needs). */
const FIXED_RATE_CONNECTIONS = 64;
/** Soak samples of the gateway's RSS: about this many over the soak, at least a second apart. */
const SOAK_SAMPLES = 60;
/** Cluster topology: how long the workers may take to write a cell's usage events before the bench goes on without. */
const CLUSTER_METER_TIMEOUT_MS = 60_000;

const utcDate = (date: Date) => date.toISOString().slice(0, 10);

/** Runs the bench described by `options` and returns every measurement. */
export async function runBench(options: BenchOptions, hooks: BenchHooks = {}): Promise<BenchReport> {
  const log = hooks.log ?? (() => {});
  const startedAt = new Date();
  const loadAverageBefore = os.loadavg();
  const children: BenchChild[] = [];
  let scaled: ScaledServices | undefined;
  let clusterStarting: Promise<BenchCluster> | undefined;
  let stopping: Promise<void> | undefined;
  const stopStarting = new AbortController();

  const stopAll = () => {
    stopping ??= (async () => {
      stopStarting.abort();
      for (const name of STOP_ORDER) {
        await Promise.all(children.filter((child) => child.name === name).map((child) => child.stop()));
      }
      await scaled?.remove().catch((error: unknown) => log(`could not remove the scaled-mode database/keys: ${String(error)}`));
      if (clusterStarting) {
        // A topology still coming up is let finish (it cannot be interrupted), then taken down; a failed one took itself down.
        const cluster = await clusterStarting.catch(() => undefined);
        if (cluster) log('taking the cluster topology down');
        await cluster?.close().catch((error: unknown) => log(`could not take the cluster topology down (npm run topology -- down): ${String(error)}`));
      }
    })();
    return stopping;
  };
  const checkNotAborted = () => {
    if (hooks.signal?.aborted || stopping) throw new Error('the bench was interrupted');
  };
  const start = async (name: ProcessName, startOptions: StartOptions = {}) => {
    const child = await BenchChild.start(name, { ...startOptions, signal: stopStarting.signal });
    children.push(child);
    return child;
  };
  const onAbort = () => void stopAll();
  hooks.signal?.addEventListener('abort', onAbort, { once: true });

  try {
    checkNotAborted();
    await bundleBenchProcesses();
    const needsProxy = options.scenarios.includes('bare-proxy');
    const needsGateway = options.scenarios.includes('gateway');
    const clustered = options.topology === 'cluster';
    if (needsGateway && options.mode === 'scaled' && !clustered) {
      log('creating a PostgreSQL database and Redis prefix for the scaled mode');
      scaled = await createScaledServices();
    }
    const gatewayEnv = {
      JWT_SECRET: randomBytes(32).toString('hex'),
      MASTER_KEY: randomBytes(32).toString('base64'),
      UPSTREAM_ALLOWED_HOSTS: '127.0.0.1',
      LOG_LEVEL: 'silent',
      METRICS_TOKEN: options.metrics ? randomBytes(24).toString('hex') : undefined,
      // Never the caller's own services by accident: only what this run created.
      DATABASE_URL: scaled?.databaseUrl,
      REDIS_URL: scaled?.redisUrl,
      BENCH_REDIS_PREFIX: scaled?.redisPrefix,
    };

    log(
      `starting processes (${options.mode} mode${needsGateway && options.mode === 'embedded' ? '; a fresh PGlite takes a few seconds' : ''}${needsGateway && clustered ? `; the cluster topology (${CLUSTER_GATEWAYS} gateways, ${CLUSTER_WORKERS} workers, a Redis Cluster, a PostgreSQL replica) takes 10-30 s` : ''})`,
    );
    const upstreamStarting = start('mock-upstream');
    if (needsGateway && clustered) {
      clusterStarting = startBenchCluster({
        UPSTREAM_ALLOWED_HOSTS: '127.0.0.1',
        ...(options.metrics ? { METRICS_TOKEN: randomBytes(24).toString('hex') } : {}),
      });
    }
    // One Promise.all over every start, so a failing start never goes unhandled.
    const [upstream, load, proxy, gateway, cluster] = await Promise.all([
      upstreamStarting,
      start('load'),
      needsProxy ? upstreamStarting.then((up) => start('bare-proxy', { env: { UPSTREAM_URL: up.url } })) : undefined,
      needsGateway && !clustered ? start('gateway', { env: gatewayEnv, startTimeoutMs: GATEWAY_START_TIMEOUT_MS }) : undefined,
      clusterStarting,
    ]);
    const worker = gateway && scaled ? await start('worker', { env: gatewayEnv }) : undefined;
    const clusterDatabaseName = cluster && new URL(cluster.topology.databaseUrl).pathname.slice(1);
    const servicesDatabaseName = scaled?.databaseName ?? clusterDatabaseName;
    // Every Redis server (in the cluster topology its 6 nodes too) and the run database's backends (the replica's too).
    const servicesCpuSeconds = () =>
      servicesDatabaseName
        ? readProcessesCpuSeconds(
            (command, commandLine) => command === 'redis-server' || (command === 'postgres' && commandLine.includes(` ${servicesDatabaseName} `)),
          )
        : undefined;

    let provisioned: Provisioned | undefined;
    if (gateway) {
      checkNotAborted();
      provisioned = await provisionIssuedKey(gateway.url!, upstream.url!, (email) => gateway.call<string>('mailed-code', { to: email }));
    } else if (cluster) {
      checkNotAborted();
      log(`provisioning a key through the load balancer ${cluster.topology.lbUrl}`);
      provisioned = await provisionIssuedKey(cluster.topology.lbUrl, upstream.url!, (email) => cluster.mailedCode(email));
    }
    /** Waits for the usage events of the gateway's answers so far; ms it took. */
    const drainMeter = async (): Promise<number | undefined> => {
      if (gateway) return gateway.call<number>('drain');
      if (!cluster || !provisioned) return undefined;
      const waitedMs = await cluster.waitForUsageEvents(provisioned.groupId, gatewayOkResponses, CLUSTER_METER_TIMEOUT_MS);
      if (waitedMs === undefined) log(`the workers had not written ${gatewayOkResponses} usage events within ${CLUSTER_METER_TIMEOUT_MS / 1000} s; going on`);
      return waitedMs;
    };
    const pglitePid = gateway ? await gateway.call<number | null>('database-pid') : null;
    const pgliteStats = () => (pglitePid === null ? undefined : readProcessStats(pglitePid));

    const targets: Record<Scenario, { base: string | undefined; key: string; servers: Watched[] }> = {
      direct: { base: upstream.url, key: UPSTREAM_API_KEY, servers: [] },
      'bare-proxy': { base: proxy?.url, key: UPSTREAM_API_KEY, servers: proxy ? [watchChild(proxy)] : [] },
      gateway: {
        base: cluster?.topology.lbUrl ?? gateway?.url,
        key: provisioned?.issuedKey ?? '',
        servers: cluster
          ? cluster.groups.map((group) => ({ name: group.name, stats: async () => groupStats(group), runQueueWaitMs: () => groupRunQueueWaitMs(group) }))
          : [gateway, worker].filter((child): child is BenchChild => child !== undefined).map(watchChild),
      },
    };

    const cells: CellResult[] = [];
    const profileFiles = new Map<Format, string[]>();
    const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
    let gatewayOkResponses = 0;

    const loadRun = (scenario: Scenario, format: Format, connections: number, ratePerSec?: number): LoadRun => ({
      url: `${targets[scenario].base}/v1/chat/completions`,
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${targets[scenario].key}` },
      body: requestBody(format),
      connections,
      durationS: options.durationS,
      ...(ratePerSec === undefined ? {} : { ratePerSec }),
      expectBody: ANSWER_BODIES[format],
    });
    const runTimeoutMs = (seconds: number) => (seconds + 60) * 1000;

    /** Warm-up, then one measured run of a cell with every process's CPU around it. */
    const measureCell = async (round: number, scenario: Scenario, format: Format, connections: number, ratePerSec?: number): Promise<CellResult> => {
      const target = targets[scenario];
      const isGateway = scenario === 'gateway';
      const run = loadRun(scenario, format, connections, ratePerSec);

      if (options.warmupS > 0) {
        const warm = await load.call<LoadResult>('run', { ...run, durationS: options.warmupS }, runTimeoutMs(options.warmupS));
        if (isGateway) {
          gatewayOkResponses += warm.ok;
          await drainMeter();
        }
      }

      const watched = [watchChild(upstream), ...target.servers];
      const waiting: Pick<Watched, 'name' | 'runQueueWaitMs'>[] = [
        watchChild(load),
        ...watched,
        ...(isGateway && pglitePid !== null ? [{ name: 'pglite' as const, runQueueWaitMs: () => readRunQueueWaitMs(pglitePid) }] : []),
      ];
      const snapshot = async () => ({
        waitedMs: waiting.map((process) => process.runQueueWaitMs()),
        children: await Promise.all(watched.map((process) => process.stats())),
        pglite: isGateway ? pgliteStats() : undefined,
        machine: readCpuTimes(),
        harness: processStats(),
        services: servicesCpuSeconds(),
      });
      if (isGateway) await gateway?.call('runtime');
      const before = await snapshot();
      let profileFile: string | undefined;
      if (isGateway && options.profile) {
        await mkdir(options.resultsDir, { recursive: true });
        const cellName = ratePerSec === undefined ? `c${connections}` : `r${ratePerSec}`;
        profileFile = path.join(options.resultsDir, `gateway-${format}-${cellName}-${stamp}.cpuprofile`);
        await gateway!.call('profile-start');
      }
      const result = await load.call<LoadResult>('run', run, runTimeoutMs(options.durationS));
      const after = await snapshot();
      const gatewayRuntime = isGateway ? await gateway?.call<GatewayRuntime>('runtime') : undefined;
      if (profileFile) {
        await gateway!.call('profile-stop', { path: profileFile });
        profileFiles.set(format, [...(profileFiles.get(format) ?? []), profileFile]);
      }
      if (isGateway) gatewayOkResponses += result.ok;
      const meterDrainMs = isGateway ? await drainMeter() : undefined;

      const runMs = after.harness.atMs - before.harness.atMs;
      const runQueueWaitPercent: CellResult['runQueueWaitPercent'] = {};
      waiting.forEach(({ name }, index) => {
        const [waitedBefore, waitedAfter] = [before.waitedMs[index], after.waitedMs[index]];
        if (waitedBefore !== undefined && waitedAfter !== undefined) runQueueWaitPercent[name] = (100 * (waitedAfter - waitedBefore)) / runMs;
      });
      const cell: CellResult = {
        ...cellResult(round, scenario, format, connections, ratePerSec, result, watched, before, after, meterDrainMs),
        runQueueWaitPercent,
        ...(gatewayRuntime ? { gatewayRuntime } : {}),
      };
      if (isGateway && before.services !== undefined && after.services !== undefined) {
        cell.servicesCpuPercent = (100 * (after.services - before.services)) / (runMs / 1000);
      }
      const machine = machineShare(cell, before, after);
      return machine ? { ...cell, machine } : cell;
    };

    const rates = options.ratePerSec > 0 ? [options.ratePerSec] : [];
    const totalCells = options.rounds * options.formats.length * (options.connections.length + rates.length) * options.scenarios.length;
    const measure = async (round: number, scenario: Scenario, format: Format, connections: number, ratePerSec?: number) => {
      checkNotAborted();
      const what = ratePerSec === undefined ? `${connections} connection(s)` : `${ratePerSec} req/s`;
      log(`cell ${cells.length + 1}/${totalCells}: ${scenario} · ${format} · ${what}${options.rounds > 1 ? ` · round ${round}` : ''}`);
      cells.push(await measureCell(round, scenario, format, connections, ratePerSec));
    };
    for (let round = 1; round <= options.rounds; round++) {
      for (const format of options.formats) {
        for (const connections of options.connections) {
          for (const scenario of options.scenarios) await measure(round, scenario, format, connections);
        }
        for (const rate of rates) {
          for (const scenario of options.scenarios) await measure(round, scenario, format, FIXED_RATE_CONNECTIONS, rate);
        }
      }
    }

    let soak: SoakResult | undefined;
    if (gateway && options.soakS > 0) {
      checkNotAborted();
      const format = options.formats[0]!;
      const ratePerSec = options.ratePerSec > 0 ? options.ratePerSec : DEFAULT_OPTIONS.ratePerSec;
      log(`soak: gateway · ${format} · ${ratePerSec} req/s for ${options.soakS} s`);
      const run = { ...loadRun('gateway', format, FIXED_RATE_CONNECTIONS, ratePerSec), durationS: options.soakS };
      const startedAtMs = performance.now();
      const sample = async () => {
        const pglite = pgliteStats();
        return {
          atS: (performance.now() - startedAtMs) / 1000,
          rssMiB: (await gateway.stats()).rssBytes / 2 ** 20,
          ...(pglite ? { pgliteRssMiB: pglite.rssBytes / 2 ** 20 } : {}),
        };
      };
      const samples = [await sample()];
      let finished = false;
      const soakLoad = load.call<LoadResult>('run', run, runTimeoutMs(options.soakS)).finally(() => {
        finished = true;
      });
      const everyMs = Math.max(1000, (options.soakS * 1000) / SOAK_SAMPLES);
      while (!finished) {
        await Promise.race([soakLoad.catch(() => {}), new Promise((resolve) => setTimeout(resolve, everyMs))]);
        checkNotAborted();
        samples.push(await sample());
      }
      const result = await soakLoad;
      gatewayOkResponses += result.ok;
      await gateway.call<number>('drain');
      soak = soakResult(format, ratePerSec, options.soakS, samples, result);
    }

    let metering: BenchReport['metering'];
    if (gateway && provisioned) {
      await gateway.call<number>('drain');
      metering = {
        clientOkResponses: gatewayOkResponses,
        meteredRequests: await meteredRequests(gateway.url!, provisioned, utcDate(startedAt), utcDate(new Date())),
      };
    } else if (cluster && provisioned) {
      // Counted on the primary: the usage API may read a replica a moment behind.
      await drainMeter();
      metering = { clientOkResponses: gatewayOkResponses, meteredRequests: await cluster.usageEvents(provisioned.groupId) };
    }

    const ratios = gatewayRatios(cells);
    const addedLatency = gatewayAddedLatency(cells);
    const profiles: BenchReport['profiles'] = [];
    for (const [format, files] of profileFiles) profiles.push({ format, files, summary: await topSelfTime(files) });

    return {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      options,
      machine: {
        node: process.version,
        cpus: os.availableParallelism(),
        cpuModel: os.cpus()[0]?.model ?? 'unknown',
        loadAverageBefore,
        loadAverageAfter: os.loadavg(),
      },
      cells,
      ratios,
      addedLatency,
      ...(options.rounds > 1 ? { rounds: summarizeRounds(ratios, addedLatency) } : {}),
      ...(soak ? { soak } : {}),
      ...(metering ? { metering } : {}),
      ...(profiles.length ? { profiles } : {}),
      ...(cluster ? { cluster: { gateways: CLUSTER_GATEWAYS, workers: CLUSTER_WORKERS, replica: cluster.topology.databaseReadUrl !== undefined } } : {}),
    };
  } finally {
    hooks.signal?.removeEventListener('abort', onAbort);
    await stopAll();
  }
}

function cellResult(
  round: number,
  scenario: Scenario,
  format: Format,
  connections: number,
  ratePerSec: number | undefined,
  result: LoadResult,
  watched: Watched[],
  before: { children: ProcessStats[]; pglite: ProcessStats | undefined },
  after: { children: ProcessStats[]; pglite: ProcessStats | undefined },
  meterDrainMs: number | undefined,
): Omit<CellResult, 'runQueueWaitPercent'> {
  const cpu: CellResult['cpuPercent'] = { load: result.cpuPercent };
  const rss: CellResult['rssMiB'] = {};
  watched.forEach((child, index) => {
    cpu[child.name] = cpuPercent(before.children[index]!, after.children[index]!);
    rss[child.name] = after.children[index]!.rssBytes / 2 ** 20;
  });
  if (before.pglite && after.pglite) {
    cpu.pglite = cpuPercent(before.pglite, after.pglite);
    rss.pglite = after.pglite.rssBytes / 2 ** 20;
  }
  return {
    round,
    scenario,
    format,
    connections,
    ...(ratePerSec === undefined ? {} : { ratePerSec }),
    reqPerSec: result.elapsedS > 0 ? result.ok / result.elapsedS : 0,
    latencyMs: result.latencyMs,
    ttfbMs: result.ttfbMs,
    ok: result.ok,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    mismatches: result.mismatches,
    failed: result.non2xx + result.errors + result.mismatches,
    cpuPercent: cpu,
    rssMiB: rss,
    ...(meterDrainMs === undefined ? {} : { meterDrainMs }),
    loadAverageAfter: os.loadavg(),
  };
}

function machineShare(
  cell: CellResult,
  before: { machine: CpuTimes | undefined; harness: ProcessStats },
  after: { machine: CpuTimes | undefined; harness: ProcessStats },
): CellResult['machine'] {
  if (!before.machine || !after.machine) return undefined;
  const { busy, steal } = machineCpuPercent(before.machine, after.machine, os.availableParallelism());
  const ours =
    Object.values(cell.cpuPercent).reduce((sum, value) => sum + value, 0) +
    cpuPercent(before.harness, after.harness) +
    (cell.servicesCpuPercent ?? 0);
  return { busyPercent: busy, stealPercent: steal, otherPercent: Math.max(0, busy - ours) };
}

/** gateway ÷ bare proxy for each round × format × connections measured in both (closed loop). */
export function gatewayRatios(cells: CellResult[]): Ratio[] {
  const ratios: Ratio[] = [];
  for (const gateway of cells.filter((cell) => cell.scenario === 'gateway' && cell.ratePerSec === undefined)) {
    const bare = cells.find(
      (cell) =>
        cell.scenario === 'bare-proxy' &&
        cell.round === gateway.round &&
        cell.ratePerSec === undefined &&
        cell.format === gateway.format &&
        cell.connections === gateway.connections,
    );
    if (!bare) continue;
    const ratio = (a: number, b: number) => (b > 0 ? a / b : Number.NaN);
    ratios.push({
      round: gateway.round,
      format: gateway.format,
      connections: gateway.connections,
      reqPerSec: ratio(gateway.reqPerSec, bare.reqPerSec),
      p50: ratio(gateway.latencyMs.p50, bare.latencyMs.p50),
      p99: ratio(gateway.latencyMs.p99, bare.latencyMs.p99),
    });
  }
  return ratios;
}

/** gateway − bare proxy for each round × format × rate measured in both (fixed rate). */
export function gatewayAddedLatency(cells: CellResult[]): AddedLatency[] {
  const added: AddedLatency[] = [];
  for (const gateway of cells.filter((cell) => cell.scenario === 'gateway' && cell.ratePerSec !== undefined)) {
    const bare = cells.find(
      (cell) =>
        cell.scenario === 'bare-proxy' && cell.round === gateway.round && cell.format === gateway.format && cell.ratePerSec === gateway.ratePerSec,
    );
    if (!bare) continue;
    added.push({
      round: gateway.round,
      format: gateway.format,
      ratePerSec: gateway.ratePerSec!,
      p50: gateway.latencyMs.p50 - bare.latencyMs.p50,
      p99: gateway.latencyMs.p99 - bare.latencyMs.p99,
      ttfbP50: gateway.ttfbMs.p50 - bare.ttfbMs.p50,
      ttfbP99: gateway.ttfbMs.p99 - bare.ttfbMs.p99,
    });
  }
  return added;
}

/** Each cell's comparisons over the rounds (given in round order): the median of every measure, cells in the order first measured. */
export function summarizeRounds(ratios: Ratio[], addedLatency: AddedLatency[]): RoundsSummary {
  const groups = <T>(items: T[], key: (item: T) => string) => {
    const byKey = new Map<string, T[]>();
    for (const item of items) byKey.set(key(item), [...(byKey.get(key(item)) ?? []), item]);
    return [...byKey.values()];
  };
  const medianOf = <T>(group: T[], measure: (item: T) => number) => median(group.map(measure));
  return {
    ratios: groups(ratios, (ratio) => `${ratio.format}/${ratio.connections}`).map((group) => {
      const reqPerSecByRound = group.map((ratio) => ratio.reqPerSec);
      return {
        format: group[0]!.format,
        connections: group[0]!.connections,
        reqPerSec: median(reqPerSecByRound),
        p50: medianOf(group, (ratio) => ratio.p50),
        p99: medianOf(group, (ratio) => ratio.p99),
        reqPerSecByRound,
      };
    }),
    addedLatency: groups(addedLatency, (added) => `${added.format}/${added.ratePerSec}`).map((group) => {
      const p99ByRound = group.map((added) => added.p99);
      return {
        format: group[0]!.format,
        ratePerSec: group[0]!.ratePerSec,
        p50: medianOf(group, (added) => added.p50),
        p99: median(p99ByRound),
        ttfbP50: medianOf(group, (added) => added.ttfbP50),
        ttfbP99: medianOf(group, (added) => added.ttfbP99),
        p99ByRound,
      };
    }),
  };
}

function soakResult(
  format: Format,
  ratePerSec: number,
  durationS: number,
  samples: SoakResult['samples'],
  load: LoadResult,
): SoakResult {
  const settled = samples.filter((sample) => sample.atS >= durationS / 5);
  const fitted = settled.length >= 2 ? settled : samples;
  const meanT = fitted.reduce((sum, s) => sum + s.atS, 0) / fitted.length;
  const meanR = fitted.reduce((sum, s) => sum + s.rssMiB, 0) / fitted.length;
  const covariance = fitted.reduce((sum, s) => sum + (s.atS - meanT) * (s.rssMiB - meanR), 0);
  const variance = fitted.reduce((sum, s) => sum + (s.atS - meanT) ** 2, 0);
  const pglite = samples.flatMap((sample) => (sample.pgliteRssMiB === undefined ? [] : [sample.pgliteRssMiB]));
  return {
    format,
    ratePerSec,
    durationS,
    samples,
    startMiB: samples[0]!.rssMiB,
    endMiB: samples.at(-1)!.rssMiB,
    maxMiB: Math.max(...samples.map((sample) => sample.rssMiB)),
    slopeMiBPerMin: variance > 0 ? (60 * covariance) / variance : 0,
    ...(pglite.length ? { pglite: { startMiB: pglite[0]!, endMiB: pglite.at(-1)!, maxMiB: Math.max(...pglite) } } : {}),
    load,
  };
}
