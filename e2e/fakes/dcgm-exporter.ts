/**
 * A fake NVIDIA DCGM exporter (github.com/NVIDIA/dcgm-exporter) as it serves its default
 * counters: GET /metrics answers Prometheus text (`text/plain; version=0.0.4`), each metric
 * with its HELP and TYPE lines and one sample per GPU labelled gpu, UUID, pci_bus_id, device,
 * modelName, Hostname and DCGM_FI_DRIVER_VERSION; gauges for clocks, temperature, power,
 * utilisation and framebuffer memory (MiB), and the energy counter (mJ). Any other path is 404.
 * What it shows is what the test set last (`show`); before that it answers 503, as the
 * exporter does while DCGM starts.
 */
import type { ServerResponse } from 'node:http';
import { FakeHttpError, type FakeProvider, type RecordedRequest, startFakeProviderServer } from './fake-provider-kit.ts';

/** One GPU as the exporter reads it from DCGM. */
export interface DcgmReading {
  uuid: string;
  index: number;
  model: string;
  utilizationPct: number;
  memoryUsedMiB: number;
  memoryTotalMiB: number;
  powerW: number;
}

export interface FakeDcgmExporter extends FakeProvider {
  /** The exporter's scrape URL, …/metrics. */
  metricsUrl: string;
  /** What the next scrapes see. */
  show(readings: readonly DcgmReading[]): void;
}

const DRIVER_VERSION = '570.124.06';

/** The default counters this fake serves: name, type, help, and its value for a reading. */
const COUNTERS: [string, 'gauge' | 'counter', string, (reading: DcgmReading) => number][] = [
  ['DCGM_FI_DEV_SM_CLOCK', 'gauge', 'SM clock frequency (in MHz).', (reading) => (reading.utilizationPct > 0 ? 1980 : 345)],
  ['DCGM_FI_DEV_MEM_CLOCK', 'gauge', 'Memory clock frequency (in MHz).', () => 3201],
  ['DCGM_FI_DEV_GPU_TEMP', 'gauge', 'GPU temperature (in C).', (reading) => Math.round(30 + reading.powerW / 20)],
  ['DCGM_FI_DEV_POWER_USAGE', 'gauge', 'Power draw (in W).', (reading) => reading.powerW],
  ['DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION', 'counter', 'Total energy consumption since boot (in mJ).', () => 181_442_310],
  ['DCGM_FI_DEV_GPU_UTIL', 'gauge', 'GPU utilization (in %).', (reading) => reading.utilizationPct],
  ['DCGM_FI_DEV_MEM_COPY_UTIL', 'gauge', 'Memory utilization (in %).', () => 0],
  ['DCGM_FI_DEV_FB_FREE', 'gauge', 'Framebuffer memory free (in MiB).', (reading) => reading.memoryTotalMiB - reading.memoryUsedMiB],
  ['DCGM_FI_DEV_FB_USED', 'gauge', 'Framebuffer memory used (in MiB).', (reading) => reading.memoryUsedMiB],
];

/** The exposition of `readings` on `hostname`, as dcgm-exporter writes it. */
export function dcgmExposition(readings: readonly DcgmReading[], hostname: string): string {
  const lines: string[] = [];
  for (const [name, type, help, value] of COUNTERS) {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const reading of readings) {
      const labels = `gpu="${reading.index}",UUID="${reading.uuid}",pci_bus_id="00000000:00:0${6 + reading.index}.0",device="nvidia${reading.index}",modelName="${reading.model}",Hostname="${hostname}",DCGM_FI_DRIVER_VERSION="${DRIVER_VERSION}"`;
      lines.push(`${name}{${labels}} ${value(reading)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function plain(res: ServerResponse, status: number, text: string, contentType = 'text/plain; charset=utf-8') {
  res.writeHead(status, { 'content-type': contentType });
  res.end(text);
}

export async function startFakeDcgmExporter(options: { hostname?: string } = {}): Promise<FakeDcgmExporter> {
  const hostname = options.hostname ?? 'gpu-node-1';
  let shown: readonly DcgmReading[] | undefined;
  const fake = await startFakeProviderServer({
    answer(request: RecordedRequest, res) {
      if (request.method !== 'GET' || request.path.split('?')[0] !== '/metrics') return plain(res, 404, '404 page not found');
      if (!shown) return plain(res, 503, 'DCGM is not ready');
      plain(res, 200, dcgmExposition(shown, hostname), 'text/plain; version=0.0.4; charset=utf-8');
    },
    internalError: (message) => new FakeHttpError(500, message),
  });
  return Object.assign(fake, {
    metricsUrl: `${fake.url}/metrics`,
    show(readings: readonly DcgmReading[]) {
      shown = readings;
    },
  });
}
