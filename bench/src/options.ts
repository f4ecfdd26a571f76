/**
 * The bench's options and their command-line flags (`npm run bench -- --help`).
 * Every value is bounded: load only ever goes to 127.0.0.1, for a limited time.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FORMATS, type Format } from './workload.ts';

export type Scenario = 'direct' | 'bare-proxy' | 'gateway';
export const SCENARIOS: readonly Scenario[] = ['direct', 'bare-proxy', 'gateway'];
export type Mode = 'embedded' | 'scaled';
/** single: one gateway forked by the harness; cluster: `npm run topology`'s many gateways behind HAProxy. */
export type TopologyKind = 'single' | 'cluster';

export interface BenchOptions {
  /** Measured seconds per cell. */
  durationS: number;
  /** Seconds of load before each cell's measurement (not counted). */
  warmupS: number;
  connections: number[];
  scenarios: Scenario[];
  formats: Format[];
  mode: Mode;
  /** cluster implies the scaled mode (PostgreSQL with a replica, a Redis Cluster). */
  topology: TopologyKind;
  /** Requests per second of the fixed-rate cells (0: none). */
  ratePerSec: number;
  /** Seconds of the gateway soak at the fixed rate (0: none). */
  soakS: number;
  /**
   * How often every cell is measured, in rounds (round 1 of every cell, then round 2, …),
   * so a noisy stretch of the machine hits one round, not one scenario.
   */
  rounds: number;
  /** Record a CPU profile of the gateway during its measured cells. */
  profile: boolean;
  /** The gateway counts its requests for /metrics (METRICS_TOKEN set), as a deployment that scrapes it does. */
  metrics: boolean;
  resultsDir: string;
}

export const DEFAULT_RESULTS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../results');

export const DEFAULT_OPTIONS: BenchOptions = {
  durationS: 10,
  warmupS: 2,
  connections: [1, 10, 50],
  scenarios: [...SCENARIOS],
  formats: [...FORMATS],
  mode: 'embedded',
  topology: 'single',
  ratePerSec: 200,
  soakS: 0,
  rounds: 1,
  profile: false,
  metrics: false,
  resultsDir: DEFAULT_RESULTS_DIR,
};

const MAX_DURATION_S = 300;
const MAX_SOAK_S = 1800;
const MAX_RATE = 20_000;
const MAX_CONNECTIONS = 1000;
const MAX_ROUNDS = 20;

export const USAGE = `Usage: npm run bench -- [flags]

  --duration S       measured seconds per cell (default ${DEFAULT_OPTIONS.durationS}, at most ${MAX_DURATION_S})
  --warmup S         seconds of unmeasured load before each cell (default ${DEFAULT_OPTIONS.warmupS}; 0 for none)
  --connections LIST concurrent connections, comma-separated (default ${DEFAULT_OPTIONS.connections.join(',')})
  --scenarios LIST   of ${SCENARIOS.join(',')} (default all)
  --formats LIST     of ${FORMATS.join(',')} (default all)
  --rate N           requests per second of the fixed-rate cells, evenly spaced (default ${DEFAULT_OPTIONS.ratePerSec}; 0 for none)
  --soak S           after the cells, run the gateway at the fixed rate for S seconds (at most ${MAX_SOAK_S})
                     and report its RSS at start and end and its slope
  --rounds N         measure every cell N times, interleaved (default 1); the comparisons with
                     the bare proxy are made within each round and summed up as their median
  --mode MODE        embedded (PGlite, in-process queue; default) or scaled (PostgreSQL + Redis +
                     a BullMQ worker process; TEST_DATABASE_URL / TEST_REDIS_URL or local defaults)
  --topology KIND    single (default: one gateway the bench starts) or cluster: 3 gateways behind
                     HAProxy, 2 workers, a Redis Cluster, PostgreSQL + a streaming replica, as
                     npm run topology starts them (ports 7200-7225; implies --mode scaled, needs haproxy)
  --profile          CPU-profile the gateway during its cells; prints its top self-time functions
  --metrics on|off   the gateway's own metrics (/metrics, METRICS_TOKEN set) on or off (default off):
                     run both ways to see what they cost the hot path
  --results DIR      where the JSON results go (default bench/results)
  --help             this text`;

export class UsageError extends Error {}

function list<T extends string>(flag: string, value: string, allowed: readonly T[]): T[] {
  const items = value.split(',').map((item) => item.trim()).filter(Boolean);
  for (const item of items) {
    if (!allowed.includes(item as T)) throw new UsageError(`--${flag}: "${item}" is not one of ${allowed.join(', ')}`);
  }
  if (items.length === 0) throw new UsageError(`--${flag} needs at least one value`);
  return [...new Set(items as T[])];
}

function seconds(flag: string, value: string, min: number, max = MAX_DURATION_S): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number < min || number > max) {
    throw new UsageError(`--${flag} must be a number of seconds from ${min} to ${max} (got "${value}")`);
  }
  return number;
}

/** Parses command-line flags; throws UsageError naming a wrong flag; undefined for --help. */
export function parseBenchArgs(args: string[]): BenchOptions | undefined {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values } = parsed;
  if (values.help) return undefined;
  const options: BenchOptions = { ...DEFAULT_OPTIONS };
  if (values.duration !== undefined) options.durationS = seconds('duration', values.duration, 0.5);
  if (values.warmup !== undefined) options.warmupS = seconds('warmup', values.warmup, 0);
  if (values.connections !== undefined) {
    options.connections = [
      ...new Set(
        values.connections.split(',').map((item) => {
          const count = Number(item.trim());
          if (!Number.isInteger(count) || count < 1 || count > MAX_CONNECTIONS) {
            throw new UsageError(`--connections: "${item}" is not a whole number from 1 to ${MAX_CONNECTIONS}`);
          }
          return count;
        }),
      ),
    ];
  }
  if (values.rate !== undefined) {
    const rate = Number(values.rate);
    if (!Number.isInteger(rate) || rate < 0 || rate > MAX_RATE) {
      throw new UsageError(`--rate must be a whole number of requests per second from 0 to ${MAX_RATE} (got "${values.rate}")`);
    }
    options.ratePerSec = rate;
  }
  if (values.rounds !== undefined) {
    const rounds = Number(values.rounds);
    if (!Number.isInteger(rounds) || rounds < 1 || rounds > MAX_ROUNDS) {
      throw new UsageError(`--rounds must be a whole number from 1 to ${MAX_ROUNDS} (got "${values.rounds}")`);
    }
    options.rounds = rounds;
  }
  if (values.soak !== undefined) options.soakS = seconds('soak', values.soak, 1, MAX_SOAK_S);
  if (values.scenarios !== undefined) options.scenarios = list('scenarios', values.scenarios, SCENARIOS);
  if (values.formats !== undefined) options.formats = list('formats', values.formats, FORMATS);
  if (values.mode !== undefined) options.mode = list<Mode>('mode', values.mode, ['embedded', 'scaled'])[0]!;
  if (values.profile) options.profile = true;
  if (values.metrics !== undefined) options.metrics = list('metrics', values.metrics, ['on', 'off'])[0] === 'on';
  if (values.results !== undefined) options.resultsDir = path.resolve(values.results);
  if (values.topology !== undefined) options.topology = list<TopologyKind>('topology', values.topology, ['single', 'cluster'])[0]!;
  if (options.topology === 'cluster') {
    // The cluster's gateways are not the bench's children: nothing can profile them or follow one's memory.
    if (values.mode === 'embedded') throw new UsageError('--mode embedded: --topology cluster runs the scaled mode only (PostgreSQL + a Redis Cluster)');
    if (options.profile) throw new UsageError('--profile: only the single topology can profile its gateway');
    if (options.soakS > 0) throw new UsageError('--soak: only the single topology can follow its gateway\'s memory');
    options.mode = 'scaled';
  }
  return options;
}

function parse(args: string[]) {
  return parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      scenarios: { type: 'string' },
      formats: { type: 'string' },
      mode: { type: 'string' },
      topology: { type: 'string' },
      rate: { type: 'string' },
      soak: { type: 'string' },
      rounds: { type: 'string' },
      profile: { type: 'boolean' },
      metrics: { type: 'string' },
      results: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
