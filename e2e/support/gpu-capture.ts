/**
 * The real H200 capture (core/src/gpu/h200-capture) replayed 60 times slower and moved to
 * a recent hour, so its 67 seconds span 68 minute slots: second k of the capture (from
 * 02:35:00) becomes minute k after `base`. With a 5-minute idle window its phases are, by
 * minute: idle 1–26, busy 27–43, 39 GB held at 0 % 44–53 (python3, pid 607), the exit's
 * 13 % at 54, idle 55–68. As nvidia-smi CSV batches an agent pushes (header on each
 * gpus batch, compute apps without one), and as the readings a DCGM exporter shows at each
 * sample's instant.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseNvidiaSmiGpus } from '@spendgate/core';
import { expect } from 'vitest';
import type { DcgmReading } from '../fakes/dcgm-exporter.ts';
import { callApi, runningAt } from './spendgate.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const CLASSIFIED_WITHIN_MS = 20_000;
const CAPTURE_START = Date.parse('2026-11-26T02:35:00Z');
const read = (file: string) => readFileSync(new URL(`../../core/src/gpu/h200-capture/${file}`, import.meta.url), 'utf8');

export const CAPTURE_GPU_UUID = 'GPU-16f6ff9f-3a6d-8e36-d344-b90f0080f305';

/** The whole hour three hours ago: the replay ends over an hour before now, so nothing scraped now falls into it. */
export const replayBase = (now = Date.now()) => Math.floor(now / HOUR_MS) * HOUR_MS - 3 * HOUR_MS;

/** nvidia-smi's timestamp: 2026/11/26 02:35:01.361. */
const smiTime = (at: number) => new Date(at).toISOString().replace('T', ' ').replace('Z', '').replaceAll('-', '/');

const parseSmiTime = (cell: string) => Date.parse(`${cell.trim().replaceAll('/', '-').replace(' ', 'T')}Z`);

export function slowedCapture(base: number) {
  const slowed = (at: number) => base + (at - CAPTURE_START) * 60;
  const retime = (line: string) => {
    const [time, ...rest] = line.split(',');
    return [smiTime(slowed(parseSmiTime(time!))), ...rest].join(',');
  };
  const [header, ...rows] = read('gpu-samples.csv').trimEnd().split('\n');
  const gpuRows = rows.map(retime);
  return {
    /** Minute k's start. */
    minute: (k: number) => new Date(base + k * MINUTE_MS),
    /** The --query-gpu CSV in batches of `size` rows, each with the header, as the agent pushes them. */
    gpuBatches(size: number): string[] {
      return Array.from({ length: Math.ceil(gpuRows.length / size) }, (_, i) => [header, ...gpuRows.slice(i * size, (i + 1) * size)].join('\n'));
    },
    /** The --query-compute-apps CSV (noheader), all of it. */
    computeApps: read('compute-apps.csv').trimEnd().split('\n').map(retime).join('\n'),
    /** Each sample's instant and what a DCGM exporter shows then. */
    dcgmTimeline: parseNvidiaSmiGpus(read('gpu-samples.csv')).samples.map((sample) => ({
      at: slowed(sample.at),
      reading: {
        uuid: sample.gpuUuid,
        index: sample.index!,
        model: sample.model!,
        utilizationPct: sample.utilizationPct!,
        memoryUsedMiB: sample.memoryUsedMiB!,
        memoryTotalMiB: sample.memoryTotalMiB!,
        powerW: sample.powerW!,
      } satisfies DcgmReading,
    })),
  };
}

/**
 * An Enterprise team's GPUs as its agent reports them: a 5-minute idle window, H200s at
 * £3.50 an hour, and the capture replayed from `replayBase()` pushed as the agent pushes it
 * (gpus batches of 60 rows, then the compute apps) with an ingest key issued for it; the
 * rollup has run when this returns (the Spendgate's queue drained, and the waste reads every
 * minute of the replay).
 */
export async function pushCaptureAsAgent(base: string, token: string, teamId: string): Promise<void> {
  const api = (method: string, route: string, body: unknown) => callApi(base, method, route, { token, body });
  await api('PUT', '/gpu/settings', { teamId, idleBelowPct: 5, idleAfterMinutes: 5 });
  await api('PUT', '/gpu/prices', { teamId, prices: [{ model: 'NVIDIA H200', perHour: '3.50' }] });
  const key = (await api('POST', '/gpu/ingest-keys', { teamId, name: 'gpu-node-1 agent' })).body.data.key as string;
  const start = replayBase();
  const capture = slowedCapture(start);
  const push = (kind: string, body: string) =>
    fetch(`${base}/api/gpu/ingest/nvidia-smi?kind=${kind}&cluster=training&host=gpu-node-1`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'text/csv' }, body });
  for (const batch of capture.gpuBatches(60)) expect((await push('gpus', batch)).status).toBe(200);
  expect((await push('compute-apps', capture.computeApps)).status).toBe(200);
  await runningAt(base).app.runtime.stores.queue.drain();
  // In the scaled mode another worker's scheduled rollup may still be classifying the minutes after the drain:
  // wait until the waste reads every minute of the replay (10 held, 40 idle) before anyone looks.
  const range = `from=${new Date(start).toISOString()}&to=${new Date(start + 2 * HOUR_MS).toISOString()}`;
  const classified = async () => (await api('GET', `/gpu/waste?teamId=${teamId}&${range}`, undefined)).body.data?.total;
  const deadline = Date.now() + CLASSIFIED_WITHIN_MS;
  for (let total = await classified(); total?.heldMinutes !== 10 || total?.idleMinutes !== 40; total = await classified()) {
    if (Date.now() > deadline) throw new Error(`the replay's minutes were not all classified within ${CLASSIFIED_WITHIN_MS} ms: ${JSON.stringify(total)}`);
    await sleep(200);
  }
}
