// gpu-scrape: reads the DCGM exporters teams configured for their clusters. Scheduled, it
// hands each exporter of a team whose plan includes GPU analytics a job of its own (one
// per exporter while pending). For one exporter: the URL is checked by the outbound guard
// by its text and again at connect, for every address its name resolves to (a name
// rebound to a private address is refused); at most 10 s and 4 MiB; the Prometheus text
// is read by core (parseDcgmMetrics) as samples taken now, recorded like a pushed batch
// (a GPU's sample at an instant stored once), and the team's rollup is asked for. Every
// outcome is kept on the exporter (last scraped, last error), which the settings show.
import { parseDcgmMetrics, type PlanSlug, planTerms } from '@spendgate/core';
import {
  findGpuScrapeTarget,
  findTeamSubscription,
  type GpuScrapeJob,
  type JobPayloads,
  type JobQueue,
  listGpuScrapeTargets,
  type OutboundGuard,
  recordGpuSamples,
  recordGpuScrape,
  type SqlStore,
} from '@spendgate/store';
import { request } from 'undici';

export const SCRAPE_TIMEOUT_MS = 10_000;
export const SCRAPE_MAX_BYTES = 4 * 1024 * 1024;

export interface GpuScrapeDeps {
  sql: Pick<SqlStore, 'db'>;
  outbound: Pick<OutboundGuard, 'dispatcher' | 'problem'>;
  queue: Pick<JobQueue<JobPayloads>, 'enqueue'>;
  /** The scrape's clock (tests replay a capture on their own). */
  now?: () => Date;
}

/** Whether a team's plan includes GPU analytics. */
export async function hasGpuAnalytics(db: SqlStore['db'], teamId: string): Promise<boolean> {
  const subscription = await findTeamSubscription(db, teamId);
  return planTerms((subscription?.plan_slug ?? 'free-trial') as PlanSlug).gpuAnalytics;
}

/** The exporter's answer as text, or why there is none. */
async function fetchMetrics(url: string, deps: GpuScrapeDeps): Promise<{ text: string } | { error: string }> {
  let response: Awaited<ReturnType<typeof request>>;
  try {
    response = await request(url, {
      dispatcher: deps.outbound.dispatcher,
      headers: { accept: 'text/plain' },
      headersTimeout: SCRAPE_TIMEOUT_MS,
      bodyTimeout: SCRAPE_TIMEOUT_MS,
      signal: AbortSignal.timeout(SCRAPE_TIMEOUT_MS),
    });
  } catch (error) {
    return { error: `The exporter could not be reached: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (response.statusCode !== 200) {
    await response.body.dump();
    return { error: `The exporter answered HTTP ${response.statusCode}` };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > SCRAPE_MAX_BYTES) {
        response.body.destroy();
        return { error: `The exporter's answer is over ${SCRAPE_MAX_BYTES / 1024 / 1024} MiB` };
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    return { error: `The exporter's answer broke off: ${error instanceof Error ? error.message : String(error)}` };
  }
  return { text: Buffer.concat(chunks).toString('utf8') };
}

export function createGpuScrapeProcessor(deps: GpuScrapeDeps) {
  const { db } = deps.sql;
  const now = deps.now ?? (() => new Date());
  return async ({ targetId }: GpuScrapeJob): Promise<void> => {
    if (targetId === undefined) {
      const allowed = new Map<string, boolean>();
      for (const target of await listGpuScrapeTargets(db)) {
        if (!allowed.has(target.team_id)) allowed.set(target.team_id, await hasGpuAnalytics(db, target.team_id));
        if (allowed.get(target.team_id)) await deps.queue.enqueue('gpu-scrape', { targetId: target.id }, { jobId: `gpu-scrape-${target.id}` });
      }
      return;
    }
    const target = await findGpuScrapeTarget(db, targetId);
    if (!target || !(await hasGpuAnalytics(db, target.team_id))) return;
    const at = now();
    const problem = deps.outbound.problem(target.url);
    const fetched = problem ? { error: `url: ${problem}` } : await fetchMetrics(target.url, deps);
    if ('error' in fetched) {
      await recordGpuScrape(db, target.id, at, fetched.error);
      return;
    }
    const { samples, problems } = parseDcgmMetrics(fetched.text, at.getTime());
    if (samples.length > 0) {
      await db.transaction().execute((trx) => recordGpuSamples(trx, target.team_id, target.cluster_id, samples, at));
      await deps.queue.enqueue('gpu-rollup', { teamId: target.team_id }, { jobId: `gpu-rollup-${target.team_id}` });
    }
    const error = problems.length > 0 ? `${problems.length} line(s) not read, the first: ${problems[0]}` : samples.length === 0 ? 'The answer holds no DCGM GPU metrics' : null;
    await recordGpuScrape(db, target.id, at, error);
  };
}
