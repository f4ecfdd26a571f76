/**
 * Smoke test of the bench harness (no timing assertions — the numbers depend on the
 * machine): one short cell of every scenario must produce numbers, and every request
 * through the gateway must succeed with the upstream's exact answer and be metered.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type BenchReport, runBench } from './src/harness.ts';
import { DEFAULT_OPTIONS, parseBenchArgs, SCENARIOS } from './src/options.ts';
import { formatReport } from './src/table.ts';

describe('bench harness', () => {
  let resultsDir: string | undefined;
  afterAll(async () => {
    if (resultsDir) await rm(resultsDir, { recursive: true, force: true });
  });

  it('measures direct, bare proxy and gateway for one short cell, the gateway without a failed request', async () => {
    resultsDir = await mkdtemp(path.join(tmpdir(), 'spendgate-bench-test-'));
    const report: BenchReport = await runBench({
      ...DEFAULT_OPTIONS,
      durationS: 1,
      warmupS: 0.5,
      connections: [1],
      formats: ['json'],
      resultsDir,
    });

    expect(report.cells.map((cell) => cell.scenario)).toEqual(SCENARIOS);
    for (const cell of report.cells) {
      expect(cell.ok, cell.scenario).toBeGreaterThan(0);
      expect(cell.reqPerSec, cell.scenario).toBeGreaterThan(0);
      expect(cell.latencyMs.p50, cell.scenario).toBeGreaterThan(0);
      expect(cell.latencyMs.p99, cell.scenario).toBeGreaterThanOrEqual(cell.latencyMs.p50);
    }
    const gateway = report.cells.find((cell) => cell.scenario === 'gateway')!;
    expect({ non2xx: gateway.non2xx, errors: gateway.errors, mismatches: gateway.mismatches }).toEqual({
      non2xx: 0,
      errors: 0,
      mismatches: 0,
    });
    expect(report.metering!.meteredRequests).toBeGreaterThanOrEqual(report.metering!.clientOkResponses);

    expect(report.ratios).toHaveLength(1);
    expect(report.ratios[0]!.reqPerSec).toBeGreaterThan(0);
    const table = formatReport(report);
    const gatewayRow = table.split('\n').find((line) => /^json\s+1\s+gateway\s/.test(line));
    expect(gatewayRow).toMatch(/^json\s+1\s+gateway\s+[\d,]+\s+[\d.]+\s+[\d.,]+\s+0\s.*×[\d.]+\s+×[\d.]+\s+×[\d.]+$/);
  }, 180_000);

  it('reads its flags and refuses unbounded or unknown values', () => {
    expect(parseBenchArgs(['--duration', '5', '--connections', '1,10,50', '--mode', 'scaled'])).toMatchObject({
      durationS: 5,
      connections: [1, 10, 50],
      mode: 'scaled',
      scenarios: SCENARIOS,
    });
    expect(parseBenchArgs(['--help'])).toBeUndefined();
    expect(() => parseBenchArgs(['--duration', '9999'])).toThrow(/--duration/);
    expect(() => parseBenchArgs(['--connections', '0'])).toThrow(/--connections/);
    expect(() => parseBenchArgs(['--scenarios', 'nginx'])).toThrow(/--scenarios/);
    expect(() => parseBenchArgs(['--bogus'])).toThrow();
  });
});
