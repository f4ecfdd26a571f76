// GPU infrastructure analytics as /api/gpu answers it (Enterprise): a team's settings, what
// a read over a range shows (utilisation per hour, the heat map, idle stretches, power per
// model, £ wasted) and what the settings' calls take. Money is GBP decimal strings; null
// where the model has no price (unpriced, never £0). Times are ISO strings (UTC hours).

/** A GPU as answers name it. */
export interface GpuRef {
  gpuId: string;
  gpuUuid: string;
  model: string | null;
  host: string | null;
  index: number | null;
  cluster: string;
}

export interface GpuIngestKey {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
}

/** A key just issued: its plaintext is in this answer only. */
export interface GpuIngestKeyIssued extends GpuIngestKey {
  key: string;
}

export interface GpuExporter {
  id: string;
  cluster: string;
  url: string;
  createdAt: string;
  lastScrapedAt: string | null;
  lastError: string | null;
}

export interface GpuPrice {
  model: string;
  /** GBP an hour. */
  perHour: string;
}

export interface GpuSettings {
  teamId: string;
  idleBelowPct: number;
  idleAfterMinutes: number;
  prices: GpuPrice[];
  /** The models the team's GPUs report, to price. */
  models: string[];
  clusters: { id: string; name: string }[];
  ingestKeys: GpuIngestKey[];
  exporters: GpuExporter[];
}

interface GpuRange {
  from: string;
  to: string;
}

export interface GpuUtilization extends GpuRange {
  hours: { hour: string; gpus: number; meanUtilizationPct: number | null; activeMinutes: number; idleHeldMinutes: number; idleMinutes: number }[];
}

export interface GpuHeatmap extends GpuRange {
  gpus: GpuRef[];
  cells: { gpuId: string; hour: string; meanUtilizationPct: number | null; minutes: number; idleMinutes: number }[];
}

export interface GpuIdleStretch extends GpuRef {
  start: string;
  end: string;
  /** Still idle: the GPU's newest minute is in it. */
  ongoing: boolean;
  heldMinutes: number;
  idleMinutes: number;
  peakMemoryMiB: number | null;
  process: { pid: number; name: string; memoryMiB: number | null } | null;
  wasted: string | null;
}

export interface GpuIdleList extends GpuRange {
  stretches: GpuIdleStretch[];
}

export interface GpuPower extends GpuRange {
  models: { model: string | null; energyKWh: number; hours: { hour: string; gpus: number; meanPowerW: number | null }[] }[];
}

/** Idle minutes and their cost: `wasted` null when none could be priced; `unpricedMinutes` on models without a price. */
export interface GpuWasteFigures {
  heldMinutes: number;
  idleMinutes: number;
  wasted: string | null;
  unpricedMinutes: number;
}

export interface GpuWaste extends GpuRange {
  currency: 'GBP';
  total: GpuWasteFigures;
  clusters: ({ cluster: string } & GpuWasteFigures)[];
  hosts: ({ cluster: string; host: string | null } & GpuWasteFigures)[];
  gpus: (GpuRef & GpuWasteFigures)[];
  processes: (GpuRef & GpuWasteFigures & { pid: number | null; processName: string | null; peakMemoryMiB: number | null })[];
}

/** A read's scope: the team and a range of at most 31 days. */
export interface GpuScope {
  teamId: string;
  from: string;
  to: string;
}
