/**
 * GPU telemetry as fleets already produce it, read into one sample shape:
 * - `nvidia-smi --query-gpu=… --format=csv` (with its header, units in the header and in
 *   each cell, `[N/A]` for a field the device does not report), read by header name so any
 *   field order works;
 * - `nvidia-smi --query-compute-apps=… --format=csv[,noheader]` (which process holds how
 *   much memory on which GPU);
 * - NVIDIA DCGM exporter's Prometheus text (`DCGM_FI_DEV_GPU_UTIL`, `DCGM_FI_DEV_FB_USED`,
 *   `DCGM_FI_DEV_FB_FREE`, `DCGM_FI_DEV_POWER_USAGE`, labelled `gpu`, `UUID`, `modelName`,
 *   `Hostname`).
 * Parsers never throw on a malformed line: they return what they read and the problems
 * met, each naming its line, so an agent's bad batch can be answered 400 with the line.
 * A reading beyond what any device reports (a utilisation over 100 %, more than 16 TiB of
 * memory, 100 kW, a device index past 1023, a pid past 2^31 − 1) is such a problem too.
 */

export interface GpuSample {
  /** Epoch milliseconds. */
  at: number;
  gpuUuid: string;
  /** The device's index on its host; null when the source does not say. */
  index: number | null;
  model: string | null;
  host: string | null;
  /** GPU utilisation, 0–100; null when not reported. */
  utilizationPct: number | null;
  memoryUsedMiB: number | null;
  memoryTotalMiB: number | null;
  powerW: number | null;
}

export interface GpuProcessSample {
  at: number;
  gpuUuid: string;
  pid: number;
  processName: string;
  usedMemoryMiB: number | null;
}

export interface Parsed<T> {
  samples: T[];
  /** One per line that could not be read, e.g. "line 4: timestamp: not a time". */
  problems: string[];
}

const MAX_PROBLEMS = 20;

/** The largest reading of each field any device reports; beyond it a line is wrong. */
const LIMITS = { index: 1023, utilizationPct: 100, memoryMiB: 16 * 1024 * 1024, powerW: 100_000, pid: 2_147_483_647 } as const;

const GPU_UUID = /^GPU-[0-9a-f-]{36}$/i;
/** Control characters but tab: never in a line of telemetry (and never stored). */
const CONTROL = /(?!\t)\p{Cc}/u;

/** The name of the first of `readings` beyond its limit, or undefined. */
function outOfRange(readings: [name: string, value: number | null, max: number][]): string | undefined {
  return readings.find(([, value, max]) => value !== null && (value < 0 || value > max))?.[0];
}

/** Splits one CSV line of nvidia-smi (comma and space separated, no quoting). */
function cells(line: string): string[] {
  return line.split(',').map((cell) => cell.trim());
}

/** A number from an nvidia-smi cell such as "81.86 W", "39278 MiB", "100 %"; null for [N/A] and the like. */
function measure(cell: string | undefined): number | null {
  if (cell === undefined) return null;
  const match = /^(-?\d+(?:\.\d+)?)(?:\s*(?:%|MiB|W|MHz|C))?$/.exec(cell);
  return match ? Number(match[1]) : null;
}

/** nvidia-smi's timestamp "2026/11/26 02:35:01.361" (the host's clock, read as UTC) or an ISO time. */
function timestamp(cell: string | undefined): number | null {
  if (!cell) return null;
  const smi = /^(\d{4})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?$/.exec(cell);
  if (smi) {
    const [, y, mo, d, h, mi, s, ms = '0'] = smi;
    return Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Number(ms.padEnd(3, '0')));
  }
  const iso = Date.parse(cell);
  return Number.isFinite(iso) && /^\d{4}-\d{2}-\d{2}T/.test(cell) ? iso : null;
}

/** Header names without their unit: "memory.used [MiB]" → "memory.used". */
function fieldNames(header: string): string[] {
  return cells(header).map((name) => name.replace(/\s*\[[^\]]*\]$/, ''));
}

function problem(problems: string[], text: string): void {
  if (problems.length < MAX_PROBLEMS) problems.push(text);
}

/** Reads `nvidia-smi --query-gpu=… --format=csv` output; it needs timestamp and uuid among the fields. */
export function parseNvidiaSmiGpus(text: string, host: string | null = null): Parsed<GpuSample> {
  const lines = text.split(/\r?\n/);
  const problems: string[] = [];
  const samples: GpuSample[] = [];
  const headerAt = lines.findIndex((line) => line.trim() !== '');
  if (headerAt < 0) return { samples, problems: ['the batch is empty'] };
  const names = fieldNames(lines[headerAt]!);
  const column = (name: string) => names.indexOf(name);
  const at = column('timestamp');
  const uuid = column('uuid');
  if (at < 0 || uuid < 0) return { samples, problems: [`line ${headerAt + 1}: the header must name timestamp and uuid`] };
  const get = (row: string[], name: string) => {
    const index = column(name);
    return index < 0 ? undefined : row[index];
  };
  for (let i = headerAt + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    if (CONTROL.test(line)) {
      problem(problems, `line ${i + 1}: a control character`);
      continue;
    }
    const row = cells(line);
    if (row.length !== names.length) {
      problem(problems, `line ${i + 1}: ${row.length} fields, the header has ${names.length}`);
      continue;
    }
    const when = timestamp(row[at]);
    if (when === null) {
      problem(problems, `line ${i + 1}: timestamp: not a time`);
      continue;
    }
    if (!GPU_UUID.test(row[uuid]!)) {
      problem(problems, `line ${i + 1}: uuid: not a GPU UUID`);
      continue;
    }
    const index = measure(get(row, 'index'));
    const sample = {
      at: when,
      gpuUuid: row[uuid]!,
      index: index === null ? null : Math.trunc(index),
      model: get(row, 'name')?.slice(0, 200) || null,
      host,
      utilizationPct: measure(get(row, 'utilization.gpu')),
      memoryUsedMiB: measure(get(row, 'memory.used')),
      memoryTotalMiB: measure(get(row, 'memory.total')),
      powerW: measure(get(row, 'power.draw')),
    };
    const wrong = outOfRange([
      ['index', sample.index, LIMITS.index],
      ['utilization.gpu', sample.utilizationPct, LIMITS.utilizationPct],
      ['memory.used', sample.memoryUsedMiB, LIMITS.memoryMiB],
      ['memory.total', sample.memoryTotalMiB, LIMITS.memoryMiB],
      ['power.draw', sample.powerW, LIMITS.powerW],
    ]);
    if (wrong) {
      problem(problems, `line ${i + 1}: ${wrong}: out of range`);
      continue;
    }
    samples.push(sample);
  }
  return { samples, problems };
}

/** The field order of `--query-compute-apps=timestamp,gpu_uuid,pid,process_name,used_memory`, used when the batch has no header. */
export const COMPUTE_APPS_FIELDS = ['timestamp', 'gpu_uuid', 'pid', 'process_name', 'used_memory'] as const;

/** Reads `nvidia-smi --query-compute-apps=… --format=csv` output, with its header or (noheader) in COMPUTE_APPS_FIELDS order. */
export function parseNvidiaSmiComputeApps(text: string): Parsed<GpuProcessSample> {
  const lines = text.split(/\r?\n/);
  const problems: string[] = [];
  const samples: GpuProcessSample[] = [];
  const first = lines.findIndex((line) => line.trim() !== '');
  if (first < 0) return { samples, problems };
  const hasHeader = /^timestamp\b|gpu_uuid/.test(lines[first]!.trim());
  const names: readonly string[] = hasHeader ? fieldNames(lines[first]!) : COMPUTE_APPS_FIELDS;
  const column = (name: string) => names.indexOf(name);
  for (const required of ['timestamp', 'gpu_uuid', 'pid']) {
    if (column(required) < 0) return { samples, problems: [`line ${first + 1}: the header must name ${required}`] };
  }
  for (let i = hasHeader ? first + 1 : first; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    if (CONTROL.test(line)) {
      problem(problems, `line ${i + 1}: a control character`);
      continue;
    }
    const row = cells(line);
    if (row.length !== names.length) {
      problem(problems, `line ${i + 1}: ${row.length} fields, expected ${names.length}`);
      continue;
    }
    const when = timestamp(row[column('timestamp')]);
    const pid = Number(row[column('pid')]);
    const uuid = row[column('gpu_uuid')]!;
    if (when === null || !Number.isSafeInteger(pid) || pid < 0 || !GPU_UUID.test(uuid)) {
      problem(problems, `line ${i + 1}: ${when === null ? 'timestamp: not a time' : !/^GPU-/i.test(uuid) ? 'gpu_uuid: not a GPU UUID' : 'pid: not a process id'}`);
      continue;
    }
    const name = column('process_name') < 0 ? '' : row[column('process_name')]!;
    const usedMemoryMiB = measure(column('used_memory') < 0 ? undefined : row[column('used_memory')]);
    const wrong = outOfRange([
      ['pid', pid, LIMITS.pid],
      ['used_memory', usedMemoryMiB, LIMITS.memoryMiB],
    ]);
    if (wrong) {
      problem(problems, `line ${i + 1}: ${wrong}: out of range`);
      continue;
    }
    samples.push({ at: when, gpuUuid: uuid, pid, processName: name.slice(0, 200), usedMemoryMiB });
  }
  return { samples, problems };
}

/** One line of Prometheus text: a metric name, its labels and a value. */
const PROMETHEUS_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+(-?\d+))?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

type DcgmField = 'utilizationPct' | 'memoryUsedMiB' | 'memoryFreeMiB' | 'powerW';

const DCGM_FIELDS: Record<string, DcgmField> = {
  DCGM_FI_DEV_GPU_UTIL: 'utilizationPct',
  DCGM_FI_DEV_FB_USED: 'memoryUsedMiB',
  DCGM_FI_DEV_FB_FREE: 'memoryFreeMiB',
  DCGM_FI_DEV_POWER_USAGE: 'powerW',
};

const DCGM_LIMITS: Record<DcgmField, number> = { utilizationPct: LIMITS.utilizationPct, memoryUsedMiB: LIMITS.memoryMiB, memoryFreeMiB: LIMITS.memoryMiB, powerW: LIMITS.powerW };

/**
 * Reads a DCGM exporter scrape (Prometheus text exposition) taken at `scrapedAt`: one
 * sample per GPU UUID, from the metrics above (others are ignored). Memory total is used
 * plus free, as DCGM reports framebuffer memory in MiB.
 */
export function parseDcgmMetrics(text: string, scrapedAt: number): Parsed<GpuSample> {
  const problems: string[] = [];
  const gpus = new Map<string, GpuSample & { memoryFreeMiB: number | null }>();
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (CONTROL.test(line)) {
      problem(problems, `line ${i + 1}: a control character`);
      continue;
    }
    const match = PROMETHEUS_LINE.exec(line);
    if (!match) {
      problem(problems, `line ${i + 1}: not a Prometheus sample`);
      continue;
    }
    const field = DCGM_FIELDS[match[1]!];
    if (!field) continue;
    const labels: Record<string, string> = {};
    for (const label of (match[2] ?? '').matchAll(LABEL)) labels[label[1]!] = label[2]!.replace(/\\(.)/g, '$1');
    const value = Number(match[3]);
    if (!labels.UUID || !Number.isFinite(value)) {
      problem(problems, `line ${i + 1}: ${labels.UUID ? 'value: not a number' : 'UUID label missing'}`);
      continue;
    }
    if (!GPU_UUID.test(labels.UUID)) {
      problem(problems, `line ${i + 1}: UUID: not a GPU UUID`);
      continue;
    }
    if (value < 0 || value > DCGM_LIMITS[field]) {
      problem(problems, `line ${i + 1}: value: out of range`);
      continue;
    }
    let gpu = gpus.get(labels.UUID);
    if (!gpu) {
      const index = Number(labels.gpu);
      gpu = {
        at: scrapedAt,
        gpuUuid: labels.UUID,
        index: Number.isInteger(index) && index >= 0 && index <= LIMITS.index ? index : null,
        model: labels.modelName?.slice(0, 200) ?? null,
        host: labels.Hostname?.slice(0, 200) ?? null,
        utilizationPct: null,
        memoryUsedMiB: null,
        memoryTotalMiB: null,
        powerW: null,
        memoryFreeMiB: null,
      };
      gpus.set(labels.UUID, gpu);
    }
    gpu[field] = value;
  }
  const samples = [...gpus.values()].map(({ memoryFreeMiB, ...sample }) => ({
    ...sample,
    memoryTotalMiB: sample.memoryUsedMiB !== null && memoryFreeMiB !== null ? sample.memoryUsedMiB + memoryFreeMiB : null,
  }));
  return { samples, problems };
}
