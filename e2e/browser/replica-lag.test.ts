/**
 * The overview on a read replica, in Debian's Chromium, scaled mode with a streaming
 * replica of its own (store's pg-replica.ts; only when TEST_DATABASE_READ_URL says the run
 * has replicas): a team admin sees the replica's lag on a line of its own; once the
 * replica stops replaying and falls behind, the overview says how many seconds its
 * figures are behind (GET /usage/freshness), and stops saying it when the replica has
 * caught up. Screenshots at 1280 and 390 px with no sideways scroll and no critical or
 * serious axe-core violation.
 */
import { type RunningPgReplica, startPgReplica } from '@spendgate/store/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, demoFilled, type RunningSpendgate, startSpendgate } from '../support/spendgate.ts';
import { browserSuite, CHROMIUM_PATH, hasChromium } from './support/chromium.ts';
import { type BrowserProfiles, browserProfiles, checkPage, signUpTeamAdmin, type TeamAdmin } from './support/session.ts';

if (!hasChromium) console.warn(`Browser tests skipped: ${CHROMIUM_PATH} is absent (install it with: apt-get install -y chromium).`);

const replicasRun = hasChromium && process.env.TEST_DATABASE_READ_URL !== undefined && process.env.TEST_REDIS_URL !== undefined;

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe.skipIf(!replicasRun)('the overview on a lagging read replica', () => {
  const suite = browserSuite();
  let replica: RunningPgReplica;
  let spendgate: RunningSpendgate;
  let admin: TeamAdmin;
  let profiles: BrowserProfiles;
  let teamId = '';
  const freshness = async () => (await callApi(spendgate.url, 'GET', '/usage/freshness', { token: admin.token })).body.data;

  beforeAll(async () => {
    replica = await startPgReplica();
    spendgate = await startSpendgate('scaled', 'browser-replica-lag', { consoleDir: suite.consoleDir, readReplica: { url: replica.url, maxLagSeconds: 300 } });
    profiles = browserProfiles(suite.browser, spendgate.url);
    admin = await signUpTeamAdmin(spendgate.url, 'replica-lag-browser@example.com', { name: 'Rita Replica', plan: 'growth' });
    const demo = await callApi(spendgate.url, 'POST', '/demo/team', { token: admin.token });
    expect(demo.status, JSON.stringify(demo.body)).toBe(201);
    teamId = demo.body.data.teamId;
    await demoFilled(spendgate, teamId, admin.token);
  }, 300_000);

  afterAll(async () => {
    await profiles?.closeAll();
    await spendgate?.close();
    await replica?.stop();
  });

  it('shows the lag to the admin, and says the figures are behind while the replica lags', async () => {
    // The admin's own changes (signing up, the demo team) read from the primary for 10 s; then the replica serves.
    await until(async () => {
      const answer = await freshness();
      return answer.replicas[0]?.serving === true && answer.behindSeconds < 5;
    }, 'the replica to serve the admin');
    const page = await profiles.open(`/dashboard?team=${teamId}`, { as: admin });
    await page.getByText(/^Database replica lag: \d+\.\d s$/).waitFor({ timeout: 60_000 });
    expect(await page.getByText(/^Figures are \d+ s behind/).count()).toBe(0);
    await page.context().close();

    await replica.pauseReplay();
    // Commits on the primary the paused replica receives but does not apply: it falls behind.
    const primary = spendgate.app.runtime.stores.sql.db;
    await until(async () => {
      await sql`select txid_current()`.execute(primary);
      return (await freshness()).behindSeconds > 6;
    }, 'the replica to fall 6 s behind');
    for (const width of [1280, 390]) {
      const shot = await profiles.open(`/dashboard?team=${teamId}`, { width, as: admin });
      const notice = shot.getByRole('status').filter({ hasText: /^Figures are \d+ s behind/ });
      await notice.waitFor({ timeout: 60_000 });
      const seconds = Number(/Figures are (\d+) s/.exec((await notice.textContent()) ?? '')?.[1]);
      expect(seconds).toBeGreaterThan(5);
      await checkPage(shot, `replica-lag-scaled-${width}`);
      await shot.context().close();
    }

    await replica.resumeReplay();
    const page2 = await profiles.open(`/dashboard?team=${teamId}`, { as: admin });
    await page2.getByText(/^Database replica lag: \d+\.\d s$/).waitFor({ timeout: 60_000 });
    await until(async () => (await page2.getByText(/^Figures are \d+ s behind/).count()) === 0, 'the notice to go');
    await page2.context().close();
  }, 420_000);
});
