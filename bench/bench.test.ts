/**
 * Smoke test of the bench harness (no timing assertions — the numbers depend on the
 * machine): one short closed-loop and one fixed-rate cell of every scenario, in two
 * rounds, and a short soak must produce numbers, and every request through the gateway must succeed with
 * the upstream's exact answer and be metered. In the scaled mode where haproxy is
 * installed, the same through the cluster topology (ports 7200-7225), which is down again after.
 */
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_RUN_DIR, haproxyInstalled } from '../tools/topology/topology.ts';
import { type BenchReport, type CellResult, gatewayAddedLatency, gatewayRatios, runBench, summarizeRounds } from './src/harness.ts';
import { DEFAULT_OPTIONS, parseBenchArgs, SCENARIOS } from './src/options.ts';
import { formatReport } from './src/table.ts';

const scaledServices = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);

describe('bench harness', () => {
  let resultsDir: string | undefined;
  afterAll(async () => {
    if (resultsDir) await rm(resultsDir, { recursive: true, force: true });
  });

  it('measures direct, bare proxy and gateway closed-loop and at a fixed rate in rounds, and soaks the gateway, without a failed request', async () => {
    resultsDir = await mkdtemp(path.join(tmpdir(), 'spendgate-bench-test-'));
    const report: BenchReport = await runBench({
      ...DEFAULT_OPTIONS,
      durationS: 1,
      warmupS: 0.5,
      connections: [1],
      formats: ['json'],
      ratePerSec: 50,
      soakS: 2,
      rounds: 2,
      resultsDir,
    });

    const round = (number: number) => [
      ...SCENARIOS.map((scenario) => [number, scenario, undefined]),
      ...SCENARIOS.map((scenario) => [number, scenario, 50]),
    ];
    expect(report.cells.map((cell) => [cell.round, cell.scenario, cell.ratePerSec])).toEqual([...round(1), ...round(2)]);
    for (const cell of report.cells) {
      expect(cell.ok, cell.scenario).toBeGreaterThan(0);
      expect(cell.reqPerSec, cell.scenario).toBeGreaterThan(0);
      expect(cell.latencyMs.p50, cell.scenario).toBeGreaterThan(0);
      expect(cell.latencyMs.p99, cell.scenario).toBeGreaterThanOrEqual(cell.latencyMs.p50);
      expect(cell.ttfbMs.p50, cell.scenario).toBeGreaterThan(0);
      expect(cell.ttfbMs.p50, cell.scenario).toBeLessThanOrEqual(cell.latencyMs.p99);
    }
    for (const gateway of report.cells.filter((cell) => cell.scenario === 'gateway')) {
      expect({ non2xx: gateway.non2xx, errors: gateway.errors, mismatches: gateway.mismatches }).toEqual({
        non2xx: 0,
        errors: 0,
        mismatches: 0,
      });
      expect(gateway.rssMiB.gateway).toBeGreaterThan(0);
      // Embedded: PGlite's own process, apart from the gateway's (its WebAssembly heap alone is over 100 MiB).
      expect(gateway.rssMiB.pglite).toBeGreaterThan(100);
      expect(gateway.cpuPercent.pglite).toBeGreaterThanOrEqual(0);
      // Every process's wait for a core, the PGlite process's too (Linux: /proc/<pid>/schedstat).
      for (const name of ['gateway', 'pglite', 'mock-upstream', 'load'] as const) {
        expect(gateway.runQueueWaitPercent[name], name).toBeGreaterThanOrEqual(0);
      }
      const runtime = gateway.gatewayRuntime!;
      expect(runtime.heapUsedBytes).toBeGreaterThan(0);
      expect(runtime.heapTotalBytes).toBeGreaterThanOrEqual(runtime.heapUsedBytes);
      expect(runtime.loopDelay.maxMs).toBeGreaterThanOrEqual(runtime.loopDelay.p99Ms);
    }
    for (const other of report.cells.filter((cell) => cell.scenario !== 'gateway')) expect(other.rssMiB.pglite).toBeUndefined();
    expect(report.soak).toMatchObject({ ratePerSec: 50, durationS: 2, load: { non2xx: 0, errors: 0, mismatches: 0 } });
    expect(report.soak!.load.ok).toBeGreaterThan(0);
    expect(report.soak!.samples.length).toBeGreaterThanOrEqual(2);
    expect(report.soak!.samples.every((sample) => sample.pgliteRssMiB! > 100)).toBe(true);
    expect(report.soak!.pglite!.maxMiB).toBeGreaterThanOrEqual(report.soak!.pglite!.startMiB);
    expect(report.metering!.meteredRequests).toBeGreaterThanOrEqual(report.metering!.clientOkResponses);

    expect(report.ratios.map((ratio) => ratio.round)).toEqual([1, 2]);
    expect(report.ratios.every((ratio) => ratio.reqPerSec > 0)).toBe(true);
    expect(report.addedLatency.map((added) => added.round)).toEqual([1, 2]);
    expect(report.addedLatency.every((added) => Number.isFinite(added.p99))).toBe(true);
    expect(report.rounds!.ratios[0]!.reqPerSecByRound).toEqual(report.ratios.map((ratio) => ratio.reqPerSec));
    const table = formatReport(report);
    const rows = table.split('\n');
    expect(rows.filter((line) => /^json\s+1 conns\s+gateway\s/.test(line))).toEqual([
      expect.stringMatching(/^json\s+1 conns\s+gateway\s+1\s+[\d,]+\s+[\d.]+\s+[\d.,]+\s+[\d.,]+ \/ [\d.,]+\s+0\s+[\d,]+\s.*×[\d.]+\s+×[\d.]+\s+×[\d.]+$/),
      expect.stringMatching(/^json\s+1 conns\s+gateway\s+2\s/),
    ]);
    expect(rows.find((line) => /^json\s+50\/s\s+gateway\s/.test(line))).toMatch(/[+−][\d.,]+ ms\s+[+−][\d.,]+ ms$/);
    expect(table).toMatch(/^Gateway vs bare proxy over 2 rounds/m);
    expect(rows.find((line) => /^json\s+1 conns\s+×[\d.]+/.test(line))).toMatch(/×[\d.]+\s+×[\d.]+\s+×[\d.]+\s+×[\d.]+ ×[\d.]+$/);
    expect(table).toMatch(/Soak: gateway, json at 50\/s for 2 s .* 0 failed/);
    expect(table).toMatch(/^PGlite process RSS after each gateway cell: json\/1 #1: [\d,]+ MiB, json\/50\/s #1: [\d,]+ MiB, json\/1 #2: [\d,]+ MiB, json\/50\/s #2: [\d,]+ MiB /m);
    expect(table).toMatch(/its PGlite process's RSS \d+ MiB at start, \d+ MiB at end \(max \d+\)/);
    expect(table).toMatch(/^Gateway JavaScript heap after each cell .*: json\/1 #1: [\d,]+ \/ [\d,]+, [\d,]+; [\d.,]+ \/ [\d.,]+ · json\/50\/s #1: /m);
  }, 180_000);

  it.skipIf(!scaledServices || !haproxyInstalled)(
    'measures the gateway through the cluster topology against the bare proxy, meters every answer and takes the topology down',
    async () => {
      resultsDir ??= await mkdtemp(path.join(tmpdir(), 'spendgate-bench-test-'));
      const report = await runBench({
        ...DEFAULT_OPTIONS,
        ...parseBenchArgs(['--topology', 'cluster', '--scenarios', 'bare-proxy,gateway', '--formats', 'json', '--connections', '1']),
        durationS: 1,
        warmupS: 0.5,
        ratePerSec: 20,
        resultsDir,
      });

      expect(report.cluster).toEqual({ gateways: 3, workers: 2, replica: true });
      expect(report.cells.map((cell) => [cell.scenario, cell.ratePerSec])).toEqual([
        ['bare-proxy', undefined],
        ['gateway', undefined],
        ['bare-proxy', 20],
        ['gateway', 20],
      ]);
      for (const cell of report.cells) expect({ scenario: cell.scenario, ok: cell.ok > 0, failed: cell.failed }).toEqual({ scenario: cell.scenario, ok: true, failed: 0 });
      for (const gateway of report.cells.filter((cell) => cell.scenario === 'gateway')) {
        // HAProxy is measured (its CPU at one connection for a second can round to 0 ticks); the three gateways' memory is summed (each well over 40 MiB).
        expect(gateway.cpuPercent.haproxy).toBeGreaterThanOrEqual(0);
        expect(gateway.cpuPercent.gateway).toBeGreaterThan(0);
        expect(gateway.rssMiB.gateway).toBeGreaterThan(3 * 40);
        expect(gateway.meterDrainMs).toBeGreaterThanOrEqual(0);
        expect(gateway.servicesCpuPercent).toBeGreaterThan(0);
      }
      expect(report.metering!.meteredRequests).toBeGreaterThanOrEqual(report.metering!.clientOkResponses);
      expect(report.ratios).toHaveLength(1);
      expect(report.addedLatency).toHaveLength(1);
      const table = formatReport(report);
      expect(table).toMatch(/^Spendgate bench — scaled mode, cluster topology \(3 gateways behind HAProxy, 2 workers, a Redis Cluster, PostgreSQL \+ a streaming replica\)/);
      expect(table.split('\n').find((line) => /^json\s+20\/s\s+gateway\s/.test(line))).toMatch(/[+−][\d.,]+ ms\s+[+−][\d.,]+ ms$/);
      expect(table).toMatch(/^Cluster: gateway rows go client → HAProxy → 3 gateways/m);
      await expect(access(path.join(DEFAULT_RUN_DIR, 'state.json')), 'the topology is down').rejects.toThrow();
      await expect(fetch('http://127.0.0.1:7200/readyz'), 'nothing listens on the load balancer port').rejects.toThrow();
    },
    150_000,
  );

  it('reads its flags and refuses unbounded or unknown values', () => {
    expect(parseBenchArgs(['--duration', '5', '--connections', '1,10', '--mode', 'scaled', '--rate', '0', '--soak', '300'])).toMatchObject({
      durationS: 5,
      connections: [1, 10],
      mode: 'scaled',
      scenarios: SCENARIOS,
      ratePerSec: 0,
      soakS: 300,
    });
    expect(parseBenchArgs([])).toMatchObject({ connections: [1, 10, 50], ratePerSec: 200, soakS: 0, rounds: 1 });
    expect(parseBenchArgs(['--rounds', '3'])).toMatchObject({ rounds: 3 });
    expect(parseBenchArgs([])).toMatchObject({ metrics: false });
    expect(parseBenchArgs(['--metrics', 'on'])).toMatchObject({ metrics: true });
    expect(() => parseBenchArgs(['--metrics', 'yes'])).toThrow(/--metrics/);
    expect(() => parseBenchArgs(['--rounds', '0'])).toThrow(/--rounds/);
    expect(() => parseBenchArgs(['--rounds', '1.5'])).toThrow(/--rounds/);
    expect(parseBenchArgs(['--help'])).toBeUndefined();
    expect(() => parseBenchArgs(['--duration', '9999'])).toThrow(/--duration/);
    expect(() => parseBenchArgs(['--connections', '0'])).toThrow(/--connections/);
    expect(() => parseBenchArgs(['--rate', '-5'])).toThrow(/--rate/);
    expect(() => parseBenchArgs(['--soak', '99999'])).toThrow(/--soak/);
    expect(() => parseBenchArgs(['--scenarios', 'nginx'])).toThrow(/--scenarios/);
    expect(() => parseBenchArgs(['--bogus'])).toThrow();
  });

  it('runs the cluster topology in the scaled mode only, and refuses what only a single gateway allows', () => {
    expect(parseBenchArgs([])).toMatchObject({ topology: 'single', mode: 'embedded' });
    expect(parseBenchArgs(['--topology', 'single', '--soak', '60', '--profile'])).toMatchObject({ topology: 'single', soakS: 60, profile: true });
    expect(parseBenchArgs(['--topology', 'cluster'])).toMatchObject({ topology: 'cluster', mode: 'scaled' });
    expect(parseBenchArgs(['--topology', 'cluster', '--mode', 'scaled', '--metrics', 'on'])).toMatchObject({ topology: 'cluster', mode: 'scaled', metrics: true });
    expect(() => parseBenchArgs(['--topology', 'cluster', '--mode', 'embedded'])).toThrow(/^--mode embedded: --topology cluster runs the scaled mode only/);
    expect(() => parseBenchArgs(['--mode', 'embedded', '--topology', 'cluster'])).toThrow(/^--mode/);
    expect(() => parseBenchArgs(['--topology', 'cluster', '--profile'])).toThrow(/^--profile/);
    expect(() => parseBenchArgs(['--topology', 'cluster', '--soak', '60'])).toThrow(/^--soak/);
    expect(() => parseBenchArgs(['--topology', 'k8s'])).toThrow(/^--topology: "k8s" is not one of single, cluster/);
  });

  it('compares the gateway with the bare proxy of its own round and sums the rounds up as medians', () => {
    const cell = (round: number, scenario: CellResult['scenario'], reqPerSec: number, p99: number, ratePerSec?: number) =>
      ({ round, scenario, format: 'json', connections: 10, reqPerSec, latencyMs: { p50: 1, p99 }, ttfbMs: { p50: 1, p99 }, ...(ratePerSec ? { ratePerSec } : {}) }) as CellResult;
    // Round 2's bare proxy ran in a noisy stretch: paired within rounds, it moves only round 2's ratio.
    const cells = [
      cell(1, 'gateway', 700, 4),
      cell(1, 'bare-proxy', 1000, 3),
      cell(1, 'gateway', 200, 2.5, 200),
      cell(1, 'bare-proxy', 200, 2, 200),
      cell(2, 'gateway', 720, 4),
      cell(2, 'bare-proxy', 600, 3),
      cell(2, 'gateway', 200, 5, 200),
      cell(2, 'bare-proxy', 200, 2, 200),
      cell(3, 'gateway', 800, 4),
      cell(3, 'bare-proxy', 1000, 3),
      cell(3, 'gateway', 200, 2.2, 200),
      cell(3, 'bare-proxy', 200, 2, 200),
    ];
    const ratios = gatewayRatios(cells);
    expect(ratios.map((ratio) => [ratio.round, ratio.reqPerSec])).toEqual([
      [1, 0.7],
      [2, 1.2],
      [3, 0.8],
    ]);
    const added = gatewayAddedLatency(cells);
    const summary = summarizeRounds(ratios, added);
    expect(summary.ratios).toEqual([{ format: 'json', connections: 10, reqPerSec: 0.8, p50: 1, p99: 4 / 3, reqPerSecByRound: [0.7, 1.2, 0.8] }]);
    expect(summary.addedLatency).toHaveLength(1);
    expect(summary.addedLatency[0]!.p99).toBeCloseTo(0.5);
    expect(summary.addedLatency[0]!.p99ByRound.map((value) => Number(value.toFixed(2)))).toEqual([0.5, 3, 0.2]);
  });
});
