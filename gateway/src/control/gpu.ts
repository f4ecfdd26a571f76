// GPU infrastructure analytics, the control plane's side (Enterprise: every call answers
// 403 `plan_required` on another plan). Team admins set the idle rules and the price table,
// issue ingest keys (sg_gpu_…, shown once, stored as hashes) and add DCGM exporters (the
// outbound guard checks each URL by every address it reaches); members read. Agents push
// nvidia-smi batches with a key: every line is read by core, the first bad one answers 400
// naming it, and nothing of a bad batch is stored. The reads price idle time with the
// team's table: a GPU whose model has no price is unpriced (null), never £0.
import { randomUUID } from 'node:crypto';
import { gpuAnalyticsRefusal, gpuTimeCostMicros, microsToDecimalString, NotFoundError, type Parsed, PlanRequiredError, parseNvidiaSmiComputeApps, parseNvidiaSmiGpus, UnauthorizedError, ValidationError } from '@spendgate/core';
import {
  deleteGpuScrapeTarget,
  ensureGpuCluster,
  findGpuIdleRules,
  findGpuScrapeTarget,
  gpuFleetHours,
  gpuHeldMinutesByProcess,
  gpuHourCells,
  gpuIdleMinutes,
  gpuIdleStretches,
  gpuPowerHours,
  insertGpuIngestKey,
  insertGpuScrapeTarget,
  type JobPayloads,
  type JobQueue,
  listGpuClusters,
  listGpuDevices,
  listGpuIngestKeys,
  listGpuPrices,
  listGpuScrapeTargets,
  type OutboundGuard,
  recordGpuProcesses,
  recordGpuSamples,
  replaceGpuPrices,
  revokeGpuIngestKey,
  type SqlStore,
  upsertGpuIdleRules,
  useGpuIngestKey,
  writeAudit,
} from '@spendgate/store';
import { GPU_INGEST_KEY_PREFIX, generateIssuedKey, hashIssuedKey, isWellFormedKey } from '../security/issued-keys.ts';
import type { Access } from './access.ts';
import type { PlanService } from './plans.ts';

export const INGEST_KEY_REQUIRED = 'A GPU ingest key is required: send it as Authorization: Bearer sg_gpu_…';
const MINUTE_MS = 60_000;
/** The most idle stretches one answer lists (newest first). */
const IDLE_LIST_LIMIT = 200;

export interface GpuRange {
  teamId: string;
  from: Date;
  to: Date;
}

type Device = Awaited<ReturnType<typeof listGpuDevices>>[number];

/** A GPU as answers name it. */
export const gpuRef = (device: Device) => ({
  gpuId: device.id,
  gpuUuid: device.gpu_uuid,
  model: device.model,
  host: device.host,
  index: device.device_index,
  cluster: device.cluster_name,
});

/** Idle minutes and what they cost (GBP): null when none of them could be priced (unpriced, never £0). */
interface Waste {
  heldMinutes: number;
  idleMinutes: number;
  pricedMicros: bigint;
  pricedMinutes: number;
  unpricedMinutes: number;
}

const noWaste = (): Waste => ({ heldMinutes: 0, idleMinutes: 0, pricedMicros: 0n, pricedMinutes: 0, unpricedMinutes: 0 });

function addWaste(into: Waste, heldMinutes: number, idleMinutes: number, pricePerHour: bigint | undefined): void {
  into.heldMinutes += heldMinutes;
  into.idleMinutes += idleMinutes;
  if (pricePerHour === undefined) into.unpricedMinutes += heldMinutes + idleMinutes;
  else {
    into.pricedMicros += gpuTimeCostMicros(heldMinutes + idleMinutes, MINUTE_MS, pricePerHour);
    into.pricedMinutes += heldMinutes + idleMinutes;
  }
}

const wasteView = (waste: Waste) => ({
  heldMinutes: waste.heldMinutes,
  idleMinutes: waste.idleMinutes,
  wasted: waste.pricedMinutes === 0 && waste.unpricedMinutes > 0 ? null : microsToDecimalString(waste.pricedMicros),
  unpricedMinutes: waste.unpricedMinutes,
});

export function createGpuService(deps: { sql: SqlStore; access: Access; plans: Pick<PlanService, 'teamTerms'>; outbound: Pick<OutboundGuard, 'check'>; queue: Pick<JobQueue<JobPayloads>, 'enqueue'> }) {
  const { db } = deps.sql;

  async function requirePlan(teamId: string): Promise<void> {
    const { terms } = await deps.plans.teamTerms(teamId);
    if (!terms.gpuAnalytics) throw new PlanRequiredError(gpuAnalyticsRefusal(terms));
  }

  /** The caller may do `action` in the team, and its plan has GPU analytics. */
  async function allowed(teamId: string, userId: string, action: 'gpu.view' | 'gpu.manage'): Promise<void> {
    await deps.access.team(teamId, userId, action);
    await requirePlan(teamId);
  }

  /** Each model's price per hour (GBP micros) in the team's table. */
  async function priceTable(teamId: string): Promise<Map<string, bigint>> {
    return new Map((await listGpuPrices(db, teamId)).map((row) => [row.model, row.per_hour_micros]));
  }

  /** The team's devices, read where the samples they describe are (`reader`: a read replica or the primary). */
  async function devicesById(reader: SqlStore['db'], teamId: string): Promise<Map<string, Device>> {
    return new Map((await listGpuDevices(reader, teamId)).map((device) => [device.id, device]));
  }

  const priceOf = (prices: Map<string, bigint>, device: Device | undefined) => (device?.model ? prices.get(device.model) : undefined);

  async function rollUpSoon(teamId: string): Promise<void> {
    await deps.queue.enqueue('gpu-rollup', { teamId }, { jobId: `gpu-rollup-${teamId}` });
  }

  return {
    async settings(userId: string, teamId: string) {
      await allowed(teamId, userId, 'gpu.view');
      const [rules, prices, clusters, keys, exporters, devices] = await Promise.all([
        findGpuIdleRules(db, teamId),
        listGpuPrices(db, teamId),
        listGpuClusters(db, teamId),
        listGpuIngestKeys(db, teamId),
        listGpuScrapeTargets(db, teamId),
        listGpuDevices(db, teamId),
      ]);
      return {
        teamId,
        idleBelowPct: rules.idleBelowPct,
        idleAfterMinutes: rules.idleAfterMinutes,
        prices: prices.map((price) => ({ model: price.model, perHour: microsToDecimalString(price.per_hour_micros) })),
        models: [...new Set(devices.flatMap((device) => (device.model ? [device.model] : [])))].sort(),
        clusters: clusters.map((cluster) => ({ id: cluster.id, name: cluster.name })),
        ingestKeys: keys.map((key) => ({ id: key.id, name: key.name, prefix: key.key_prefix, createdAt: key.created_at, lastUsedAt: key.last_used_at })),
        exporters: exporters.map((exporter) => ({
          id: exporter.id,
          cluster: exporter.cluster_name,
          url: exporter.url,
          createdAt: exporter.created_at,
          lastScrapedAt: exporter.last_scraped_at,
          lastError: exporter.last_error,
        })),
      };
    },

    async updateIdleRules(userId: string, teamId: string, rules: { idleBelowPct: number; idleAfterMinutes: number }) {
      await allowed(teamId, userId, 'gpu.manage');
      await db.transaction().execute(async (trx) => {
        const before = await findGpuIdleRules(trx, teamId);
        await upsertGpuIdleRules(trx, teamId, rules, userId);
        await writeAudit(trx, {
          teamId,
          actorUserId: userId,
          action: 'gpu.idle-rules.updated',
          targetType: 'team',
          targetId: teamId,
          before: { idleBelowPct: before.idleBelowPct, idleAfterMinutes: before.idleAfterMinutes },
          after: { idleBelowPct: rules.idleBelowPct, idleAfterMinutes: rules.idleAfterMinutes },
        });
      });
    },

    async replacePrices(userId: string, teamId: string, prices: { model: string; perHourMicros: bigint }[]) {
      await allowed(teamId, userId, 'gpu.manage');
      const models = new Set<string>();
      prices.forEach((price, index) => {
        if (models.has(price.model)) throw new ValidationError(`prices.${index}.model`, `prices.${index}.model: ${price.model} is priced twice`);
        models.add(price.model);
      });
      await db.transaction().execute(async (trx) => {
        const before = await listGpuPrices(trx, teamId);
        await replaceGpuPrices(trx, teamId, prices, userId);
        await writeAudit(trx, {
          teamId,
          actorUserId: userId,
          action: 'gpu.prices.replaced',
          targetType: 'team',
          targetId: teamId,
          before: { prices: before.map((price) => ({ model: price.model, perHourMicros: price.per_hour_micros })) },
          after: { prices: prices.map((price) => ({ model: price.model, perHourMicros: price.perHourMicros })) },
        });
      });
    },

    /** A new ingest key: its plaintext is in this answer only. */
    async issueIngestKey(userId: string, teamId: string, name: string) {
      await allowed(teamId, userId, 'gpu.manage');
      const generated = generateIssuedKey(GPU_INGEST_KEY_PREFIX);
      const id = randomUUID();
      const row = await db.transaction().execute(async (trx) => {
        const inserted = await insertGpuIngestKey(trx, { id, team_id: teamId, name, key_hash: generated.hash, key_prefix: generated.prefix, created_by: userId });
        await writeAudit(trx, { teamId, actorUserId: userId, action: 'gpu.ingest-key.issued', targetType: 'gpu-ingest-key', targetId: id, after: { name, prefix: generated.prefix } });
        return inserted;
      });
      return { id, name, prefix: row.key_prefix, createdAt: row.created_at, lastUsedAt: null, key: generated.plaintext };
    },

    async revokeIngestKey(userId: string, teamId: string, id: string) {
      await allowed(teamId, userId, 'gpu.manage');
      const revoked = await db.transaction().execute(async (trx) => {
        const key = await revokeGpuIngestKey(trx, teamId, id, new Date());
        if (!key) return false;
        await writeAudit(trx, {
          teamId,
          actorUserId: userId,
          action: 'gpu.ingest-key.revoked',
          targetType: 'gpu-ingest-key',
          targetId: id,
          before: { name: key.name, prefix: key.key_prefix, revoked: false },
          after: { revoked: true },
        });
        return true;
      });
      if (!revoked) throw new NotFoundError('GPU ingest key');
    },

    async addExporter(userId: string, teamId: string, input: { cluster: string; url: string }) {
      await allowed(teamId, userId, 'gpu.manage');
      const problem = await deps.outbound.check(input.url);
      if (problem) throw new ValidationError('url', `url: ${problem}`);
      const id = randomUUID();
      const added = await db.transaction().execute(async (trx) => {
        const clusterId = await ensureGpuCluster(trx, teamId, input.cluster);
        const row = await insertGpuScrapeTarget(trx, { id, teamId, clusterId, url: input.url, createdBy: userId });
        if (row) await writeAudit(trx, { teamId, actorUserId: userId, action: 'gpu.exporter.added', targetType: 'gpu-exporter', targetId: id, after: { cluster: input.cluster, url: input.url } });
        return row;
      });
      if (!added) throw new ValidationError('url', `url: the ${input.cluster} cluster already scrapes this exporter`);
      await deps.queue.enqueue('gpu-scrape', { targetId: id }, { jobId: `gpu-scrape-${id}` });
      return { id, cluster: input.cluster, url: added.url, createdAt: added.created_at, lastScrapedAt: null, lastError: null };
    },

    async deleteExporter(userId: string, teamId: string, id: string) {
      await allowed(teamId, userId, 'gpu.manage');
      const deleted = await db.transaction().execute(async (trx) => {
        const exporter = await findGpuScrapeTarget(trx, id);
        if (exporter?.team_id !== teamId || !(await deleteGpuScrapeTarget(trx, teamId, id))) return false;
        await writeAudit(trx, { teamId, actorUserId: userId, action: 'gpu.exporter.deleted', targetType: 'gpu-exporter', targetId: id, before: { cluster: exporter.cluster_name, url: exporter.url } });
        return true;
      });
      if (!deleted) throw new NotFoundError('DCGM exporter');
    },

    /**
     * A batch an agent pushed with its ingest key: `gpus` (--query-gpu) or `compute-apps`
     * (--query-compute-apps) CSV from one host of a cluster. All or nothing: the first line
     * core cannot read answers 400 naming it.
     */
    async ingestNvidiaSmi(presentedKey: string | undefined, batch: { kind: 'gpus' | 'compute-apps'; cluster: string; host: string; text: string }) {
      if (!presentedKey || !isWellFormedKey(presentedKey, GPU_INGEST_KEY_PREFIX)) throw new UnauthorizedError(INGEST_KEY_REQUIRED);
      const key = await useGpuIngestKey(db, hashIssuedKey(presentedKey), new Date());
      if (!key) throw new UnauthorizedError('This GPU ingest key is not valid: it was revoked, or never issued');
      await requirePlan(key.team_id);
      const readable = <T>(parsed: Parsed<T>): T[] => {
        if (parsed.problems.length > 0) throw new ValidationError('body', `body: ${parsed.problems[0]}`);
        return parsed.samples;
      };
      const samples = batch.kind === 'gpus' ? readable(parseNvidiaSmiGpus(batch.text, batch.host)) : [];
      const processes = batch.kind === 'compute-apps' ? readable(parseNvidiaSmiComputeApps(batch.text)) : [];
      const recorded = await db.transaction().execute(async (trx) => {
        const clusterId = await ensureGpuCluster(trx, key.team_id, batch.cluster);
        if (batch.kind === 'gpus') {
          const { gpus, newSamples } = await recordGpuSamples(trx, key.team_id, clusterId, samples, new Date());
          return { gpus, samples: newSamples, processes: 0 };
        }
        return { ...(await recordGpuProcesses(trx, key.team_id, clusterId, batch.host, processes)), samples: 0 };
      });
      if (recorded.samples > 0) await rollUpSoon(key.team_id);
      return { kind: batch.kind, ...recorded };
    },

    async utilization(userId: string, range: GpuRange) {
      await allowed(range.teamId, userId, 'gpu.view');
      return { from: range.from, to: range.to, hours: await gpuFleetHours(await deps.sql.readDb(userId), range) };
    },

    async heatmap(userId: string, range: GpuRange) {
      await allowed(range.teamId, userId, 'gpu.view');
      const reader = await deps.sql.readDb(userId);
      const [devices, cells] = await Promise.all([listGpuDevices(reader, range.teamId), gpuHourCells(reader, range)]);
      const reporting = new Set(cells.map((cell) => cell.gpuId));
      return { from: range.from, to: range.to, gpus: devices.filter((device) => reporting.has(device.id)).map(gpuRef), cells };
    },

    async idle(userId: string, range: GpuRange) {
      await allowed(range.teamId, userId, 'gpu.view');
      const reader = await deps.sql.readDb(userId);
      const [devices, prices, stretches] = await Promise.all([devicesById(reader, range.teamId), priceTable(range.teamId), gpuIdleStretches(reader, { ...range, limit: IDLE_LIST_LIMIT })]);
      return {
        from: range.from,
        to: range.to,
        stretches: stretches.map(({ gpuId, peakUtilizationPct: _, ...stretch }) => {
          const device = devices.get(gpuId)!;
          const price = priceOf(prices, device);
          return { ...gpuRef(device), ...stretch, wasted: price === undefined ? null : microsToDecimalString(gpuTimeCostMicros(stretch.heldMinutes + stretch.idleMinutes, MINUTE_MS, price)) };
        }),
      };
    },

    async power(userId: string, range: GpuRange) {
      await allowed(range.teamId, userId, 'gpu.view');
      const models = new Map<string | null, { model: string | null; wattMinutes: number; hours: { hour: Date; gpus: number; meanPowerW: number | null }[] }>();
      for (const row of await gpuPowerHours(await deps.sql.readDb(userId), range)) {
        const entry = models.get(row.model) ?? { model: row.model, wattMinutes: 0, hours: [] };
        entry.wattMinutes += row.wattMinutes;
        entry.hours.push({ hour: row.hour, gpus: row.gpus, meanPowerW: row.meanPowerW });
        models.set(row.model, entry);
      }
      return {
        from: range.from,
        to: range.to,
        models: [...models.values()].map((entry) => ({ model: entry.model, energyKWh: entry.wattMinutes / 60 / 1000, hours: entry.hours })),
      };
    },

    /** £ wasted by idle and idle-held minutes in the range, per cluster, host, GPU and (idle-held) process. */
    async waste(userId: string, range: GpuRange) {
      await allowed(range.teamId, userId, 'gpu.view');
      const reader = await deps.sql.readDb(userId);
      const [devices, prices, perGpu, perProcess] = await Promise.all([
        devicesById(reader, range.teamId),
        priceTable(range.teamId),
        gpuIdleMinutes(reader, range),
        gpuHeldMinutesByProcess(reader, range),
      ]);
      const total = noWaste();
      const clusters = new Map<string, Waste & { cluster: string }>();
      const hosts = new Map<string, Waste & { cluster: string; host: string | null }>();
      const gpus = perGpu.map((row) => {
        const device = devices.get(row.gpuId)!;
        const price = priceOf(prices, device);
        const cluster = clusters.get(device.cluster_name) ?? { ...noWaste(), cluster: device.cluster_name };
        clusters.set(device.cluster_name, cluster);
        const hostKey = JSON.stringify([device.cluster_name, device.host]);
        const host = hosts.get(hostKey) ?? { ...noWaste(), cluster: device.cluster_name, host: device.host };
        hosts.set(hostKey, host);
        const gpu = noWaste();
        for (const into of [total, cluster, host, gpu]) addWaste(into, row.heldMinutes, row.idleMinutes, price);
        return { ...gpuRef(device), ...wasteView(gpu) };
      });
      const processes = perProcess.map((row) => {
        const device = devices.get(row.gpuId)!;
        const waste = noWaste();
        addWaste(waste, row.minutes, 0, priceOf(prices, device));
        return { ...gpuRef(device), pid: row.pid, processName: row.processName, peakMemoryMiB: row.peakMemoryMiB, ...wasteView(waste) };
      });
      return {
        from: range.from,
        to: range.to,
        currency: 'GBP' as const,
        total: wasteView(total),
        clusters: [...clusters.values()].map(({ cluster, ...waste }) => ({ cluster, ...wasteView(waste) })),
        hosts: [...hosts.values()].map(({ cluster, host, ...waste }) => ({ cluster, host, ...wasteView(waste) })),
        gpus,
        processes,
      };
    },
  };
}

export type GpuService = ReturnType<typeof createGpuService>;
