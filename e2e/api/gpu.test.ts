// GPU infrastructure analytics through the API, in both run modes, on the real H200 capture
// slowed 60 times (each second a minute, e2e/support/gpu-capture.ts) with a 5-minute window:
// pushed as nvidia-smi CSV batches with an ingest key, and scraped from a fake DCGM exporter
// showing the same samples (the scrape job run at each sample's instant), both come out in the
// capture's phases with the £ the price table makes of them (unpriced before it has the model);
// a bad batch answers 400 naming its line and stores nothing, a batch sent twice counts once;
// a wrong, absent or revoked key answers 401; another team sees none of it; a team off
// Enterprise gets 403 on every call; an exporter on a private address is refused when saved,
// and when a name resolves to one at scrape time.
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createOutboundGuard, upsertSubscription } from '@spendgate/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateIssuedKey, GPU_INGEST_KEY_PREFIX } from '../../gateway/src/security/issued-keys.ts';
import { createGpuScrapeProcessor } from '../../worker/src/jobs/gpu-scrape.ts';
import { type FakeDcgmExporter, startFakeDcgmExporter } from '../fakes/dcgm-exporter.ts';
import { CAPTURE_GPU_UUID, replayBase, slowedCapture } from '../support/gpu-capture.ts';
import { signUp } from '../support/sign-up.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';

const MINUTE_MS = 60_000;

describe.each(testModes)('GPU analytics (%s)', (mode) => {
  let spendgate: RunningSpendgate;
  let dcgm: FakeDcgmExporter;
  const base = replayBase();
  const capture = slowedCapture(base);
  const range = `from=${new Date(base).toISOString()}&to=${new Date(base + 2 * 3_600_000).toISOString()}`;
  const admin = { token: '', userId: '' };
  const ids = { pushed: '', scraped: '', key: '', keyId: '', exporter: '' };
  const outsider = { token: '', teamId: '', key: '' };
  const trial = { token: '', teamId: '' };

  const api = (method: string, route: string, body?: unknown, token = admin.token) => callApi(spendgate.url, method, route, { token, body });
  const push = (key: string | undefined, kind: string, body: string, query = 'cluster=training&host=gpu-node-1', contentType = 'text/csv') =>
    fetch(`${spendgate.url}/api/gpu/ingest/nvidia-smi?kind=${kind}&${query}`, {
      method: 'POST',
      headers: { 'content-type': contentType, ...(key === undefined ? {} : { authorization: `Bearer ${key}` }) },
      body,
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as { data: { gpus: number; samples: number; processes: number } | null; message: string; field?: string; code?: string } }));
  const samplesOf = async (teamId: string) =>
    (await spendgate.app.runtime.stores.sql.db.selectFrom('gpu_samples').innerJoin('gpu_devices', 'gpu_devices.id', 'gpu_samples.gpu_id').select('gpu_samples.at').where('gpu_devices.team_id', '=', teamId).execute()).length;

  beforeAll(async () => {
    dcgm = await startFakeDcgmExporter({ hostname: 'gpu-node-1' });
    spendgate = await startSpendgate(mode, `gpu-${mode}`);
    Object.assign(admin, await signUp(spendgate.url, `gpu-admin-${mode}@example.com`));
    await upsertSubscription(spendgate.app.runtime.stores.sql.db, { userId: admin.userId, planSlug: 'enterprise', status: 'active', trialEnd: null });
    ids.pushed = (await api('POST', '/team/', { name: 'Training fleet', description: '' })).body.data.id;
    ids.scraped = (await api('POST', '/team/', { name: 'Inference fleet', description: '' })).body.data.id;
    const other = await signUp(spendgate.url, `gpu-outsider-${mode}@example.com`);
    await upsertSubscription(spendgate.app.runtime.stores.sql.db, { userId: other.userId, planSlug: 'enterprise', status: 'active', trialEnd: null });
    outsider.token = other.token;
    outsider.teamId = (await api('POST', '/team/', { name: 'Elsewhere', description: '' }, other.token)).body.data.id;
    const trialUser = await signUp(spendgate.url, `gpu-trial-${mode}@example.com`);
    trial.token = trialUser.token;
    trial.teamId = (await api('POST', '/team/', { name: 'On trial', description: '' }, trialUser.token)).body.data.id;
  }, 120_000);
  afterAll(async () => {
    await spendgate?.close();
    await dcgm?.close();
  });

  it('issues an ingest key shown once, and takes the idle rules', async () => {
    const issued = await api('POST', '/gpu/ingest-keys', { teamId: ids.pushed, name: 'gpu-node-1 agent' });
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    expect(issued.body.data.key).toMatch(/^sg_gpu_[0-9A-Za-z]{49}$/);
    expect(issued.body.data.prefix).toBe(issued.body.data.key.slice(0, 13));
    ids.key = issued.body.data.key;
    ids.keyId = issued.body.data.id;
    for (const teamId of [ids.pushed, ids.scraped]) {
      const rules = await api('PUT', '/gpu/settings', { teamId, idleBelowPct: 5, idleAfterMinutes: 5 });
      expect(rules.status, JSON.stringify(rules.body)).toBe(200);
      expect(rules.body.data).toMatchObject({ idleBelowPct: 5, idleAfterMinutes: 5, prices: [] });
    }
    const settings = await api('GET', `/gpu/settings?teamId=${ids.pushed}`);
    expect(settings.body.data.ingestKeys).toEqual([{ id: ids.keyId, name: 'gpu-node-1 agent', prefix: issued.body.data.prefix, createdAt: expect.any(String), lastUsedAt: null }]);
    expect(JSON.stringify(settings.body)).not.toContain(ids.key);
    const stored = await spendgate.app.runtime.stores.sql.db.selectFrom('gpu_ingest_keys').selectAll().where('id', '=', ids.keyId).executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toContain(ids.key.slice(13));
  });

  it('replays the capture pushed as nvidia-smi batches: each phase, unpriced until the table prices the H200, then £ to the micro', async () => {
    for (const batch of capture.gpuBatches(40)) {
      const pushed = await push(ids.key, 'gpus', batch);
      expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
      expect(pushed.body.data).toMatchObject({ gpus: 1 });
    }
    expect((await push(ids.key, 'compute-apps', capture.computeApps)).body.data).toEqual({ kind: 'compute-apps', gpus: 1, samples: 0, processes: 1 });
    // A batch sent again adds nothing.
    expect((await push(ids.key, 'gpus', capture.gpuBatches(40)[2]!)).body.data).toEqual({ kind: 'gpus', gpus: 1, samples: 0, processes: 0 });
    expect(await samplesOf(ids.pushed)).toBe(268);
    await spendgate.app.runtime.stores.queue.drain();

    const unpriced = await api('GET', `/gpu/waste?teamId=${ids.pushed}&${range}`);
    expect(unpriced.body.data.total).toEqual({ heldMinutes: 10, idleMinutes: 40, wasted: null, unpricedMinutes: 50 });

    const priced = await api('PUT', '/gpu/prices', { teamId: ids.pushed, prices: [{ model: 'NVIDIA H200', perHour: '3.50' }] });
    expect(priced.status, JSON.stringify(priced.body)).toBe(200);
    expect(priced.body.data.prices).toEqual([{ model: 'NVIDIA H200', perHour: '3.500000' }]);
    expect(priced.body.data.models).toEqual(['NVIDIA H200']);

    const gpu = { gpuUuid: CAPTURE_GPU_UUID, model: 'NVIDIA H200', host: 'gpu-node-1', index: 0, cluster: 'training' };
    const idle = await api('GET', `/gpu/idle?teamId=${ids.pushed}&${range}`);
    expect(idle.status, JSON.stringify(idle.body)).toBe(200);
    // £3.50 an hour: 14 minutes £0.816667, 10 minutes £0.583333, 26 minutes £1.516667 (each rounded half up to the micro).
    expect(idle.body.data.stretches).toEqual([
      { ...gpu, gpuId: expect.any(String), start: capture.minute(55).toISOString(), end: capture.minute(69).toISOString(), ongoing: true, heldMinutes: 0, idleMinutes: 14, peakMemoryMiB: 0, process: null, wasted: '0.816667' },
      {
        ...gpu,
        gpuId: expect.any(String),
        start: capture.minute(44).toISOString(),
        end: capture.minute(54).toISOString(),
        ongoing: false,
        heldMinutes: 10,
        idleMinutes: 0,
        peakMemoryMiB: 39287,
        process: { pid: 607, name: 'python3', memoryMiB: 39278 },
        wasted: '0.583333',
      },
      { ...gpu, gpuId: expect.any(String), start: capture.minute(1).toISOString(), end: capture.minute(27).toISOString(), ongoing: false, heldMinutes: 0, idleMinutes: 26, peakMemoryMiB: 0, process: null, wasted: '1.516667' },
    ]);

    // The busy phase (27–43) and the exit (54) are the active minutes; the first hour holds minutes 1–59, the next 60–68.
    const utilization = await api('GET', `/gpu/utilization?teamId=${ids.pushed}&${range}`);
    expect(utilization.body.data.hours).toEqual([
      { hour: new Date(base).toISOString(), gpus: 1, meanUtilizationPct: expect.any(Number), activeMinutes: 18, idleHeldMinutes: 10, idleMinutes: 31 },
      { hour: new Date(base + 3_600_000).toISOString(), gpus: 1, meanUtilizationPct: 0, activeMinutes: 0, idleHeldMinutes: 0, idleMinutes: 9 },
    ]);

    const heatmap = await api('GET', `/gpu/heatmap?teamId=${ids.pushed}&${range}`);
    expect(heatmap.body.data.gpus).toEqual([{ ...gpu, gpuId: expect.any(String) }]);
    expect(heatmap.body.data.cells.map((cell: { minutes: number; idleMinutes: number }) => [cell.minutes, cell.idleMinutes])).toEqual([
      [59, 41],
      [9, 9],
    ]);

    const waste = await api('GET', `/gpu/waste?teamId=${ids.pushed}&${range}`);
    const all = { heldMinutes: 10, idleMinutes: 40, wasted: '2.916667', unpricedMinutes: 0 };
    expect(waste.body.data).toMatchObject({ currency: 'GBP', total: all, clusters: [{ cluster: 'training', ...all }], hosts: [{ cluster: 'training', host: 'gpu-node-1', ...all }], gpus: [{ ...gpu, ...all }] });
    expect(waste.body.data.processes).toEqual([{ ...gpu, gpuId: expect.any(String), pid: 607, processName: 'python3', peakMemoryMiB: 39278, heldMinutes: 10, idleMinutes: 0, wasted: '0.583333', unpricedMinutes: 0 }]);

    // Energy: each minute's mean draw for a minute, worked out here from the capture itself.
    const perMinute = new Map<number, number[]>();
    for (const { at, reading } of capture.dcgmTimeline) perMinute.set(Math.floor(at / MINUTE_MS), [...(perMinute.get(Math.floor(at / MINUTE_MS)) ?? []), reading.powerW]);
    const expectedKWh = [...perMinute.values()].reduce((sum, watts) => sum + watts.reduce((a, b) => a + b, 0) / watts.length, 0) / 60 / 1000;
    const power = await api('GET', `/gpu/power?teamId=${ids.pushed}&${range}`);
    expect(power.body.data.models).toEqual([{ model: 'NVIDIA H200', energyKWh: expect.closeTo(expectedKWh, 9), hours: [expect.objectContaining({ gpus: 1 }), expect.objectContaining({ gpus: 1 })] }]);
  }, 120_000);

  it("feeds the AI advisor: an idle-gpu insight with the week's idle periods, python3 holding 38.4 GiB and the £ wasted, charged once at the plan's price", async () => {
    const run = await api('POST', '/usage/ai-advisor/generate', { teamId: ids.pushed, data: [] });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    // Enterprise charges £0.02 a tip; the team is not a demo team (core's isCharged).
    expect(run.body.data).toMatchObject({ demo: false, found: 1, created: 1, charged: '0.020000' });
    const [insight] = run.body.data.insights;
    // £3.50 an hour × 50 idle minutes (10 held by python3, 40 with nothing allocated) = £2.916667; × 30 / 7 days = £12.500001 a month.
    expect(insight).toMatchObject({
      kind: 'idle-gpu',
      title: 'GPU 0 on host gpu-node-1 held 38.4 GiB at 0 % for 10 minutes, £2.916667 wasted this week',
      text: 'In the last 7 days the NVIDIA H200 in cluster training spent 10 minutes holding memory while idle (python3, pid 607) and 40 minutes idle with nothing allocated: £2.916667 at £3.50 an hour, about £12.500001 a month.',
      subject: { keyId: null, connectionId: null, provider: null, model: 'NVIDIA H200' },
      confidence: 'high',
      currentCost: '2.916667',
      counterfactualCost: '0.000000',
      estimatedMonthlySaving: '12.500001',
      price: '0.020000',
      change: { action: 'manual', instruction: "Stop python3 (pid 607) on host gpu-node-1, or have it release GPU 0 on host gpu-node-1's memory when it has no work; scale the GPU down while it is idle" },
    });
    expect(insight.evidence.facts).toMatchObject({ pricePerHour: '3.500000', wasted: '2.916667', heldMinutes: 10, idleMinutes: 40, processName: 'python3', pid: 607 });
    const period = (from: number, to: number, heldMinutes: number, idleMinutes: number, peakMemoryMiB: number, wasted: string, process: { pid: number; name: string } | null = null) => ({
      start: capture.minute(from).toISOString(),
      end: capture.minute(to).toISOString(),
      heldMinutes,
      idleMinutes,
      peakMemoryMiB,
      process,
      wasted,
    });
    expect(insight.evidence.idlePeriods).toEqual([
      period(55, 69, 0, 14, 0, '0.816667'),
      period(44, 54, 10, 0, 39287, '0.583333', { pid: 607, name: 'python3' }),
      period(1, 27, 0, 26, 0, '1.516667'),
    ]);
    // Found again: refreshed, not charged again.
    expect((await api('POST', '/usage/ai-advisor/generate', { teamId: ids.pushed, data: [] })).body.data).toMatchObject({ found: 1, created: 0, charged: '0.000000' });
    expect((await api('GET', `/usage/ai-advisor?teamId=${ids.pushed}`)).body.data).toMatchObject({ totalCharged: '0.020000', insights: [{ kind: 'idle-gpu', realisedMonthlySaving: null }] });
  }, 60_000);

  it('replays the same samples scraped from a DCGM exporter: the same phases and £, with no process to name', async () => {
    const added = await api('POST', '/gpu/exporters', { teamId: ids.scraped, cluster: 'inference', url: dcgm.metricsUrl });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    ids.exporter = added.body.data.id;
    await api('PUT', '/gpu/prices', { teamId: ids.scraped, prices: [{ model: 'NVIDIA H200', perHour: '3.5' }] });
    // Adding it scraped it once: the exporter was still starting (503), which the settings show.
    await spendgate.app.runtime.stores.queue.drain();
    const settings = await api('GET', `/gpu/settings?teamId=${ids.scraped}`);
    expect(settings.body.data.exporters).toEqual([
      { id: ids.exporter, cluster: 'inference', url: dcgm.metricsUrl, createdAt: expect.any(String), lastScrapedAt: expect.any(String), lastError: 'The exporter answered HTTP 503' },
    ]);

    // The scrape job at each sample's instant (its clock is the replay's; the guard is the one the worker builds).
    const outbound = createOutboundGuard({ allowedHosts: [{ host: '127.0.0.1', port: undefined }] });
    let now = new Date(base);
    const scrape = createGpuScrapeProcessor({ sql: spendgate.app.runtime.stores.sql, outbound, queue: spendgate.app.runtime.stores.queue, now: () => now });
    for (const { at, reading } of capture.dcgmTimeline) {
      dcgm.show([reading]);
      now = new Date(at);
      await scrape({ targetId: ids.exporter });
    }
    await outbound.dispatcher.destroy();
    await spendgate.app.runtime.stores.queue.drain();
    expect((await api('GET', `/gpu/settings?teamId=${ids.scraped}`)).body.data.exporters[0]).toMatchObject({ lastError: null });

    const idle = await api('GET', `/gpu/idle?teamId=${ids.scraped}&${range}`);
    const stretch = (from: number, to: number, held: number, idleMinutes: number, peak: number, wasted: string) => ({
      gpuUuid: CAPTURE_GPU_UUID,
      model: 'NVIDIA H200',
      host: 'gpu-node-1',
      index: 0,
      cluster: 'inference',
      start: capture.minute(from).toISOString(),
      end: capture.minute(to).toISOString(),
      heldMinutes: held,
      idleMinutes,
      peakMemoryMiB: peak,
      process: null,
      wasted,
    });
    expect(idle.body.data.stretches).toEqual([
      expect.objectContaining(stretch(55, 69, 0, 14, 0, '0.816667')),
      expect.objectContaining(stretch(44, 54, 10, 0, 39287, '0.583333')),
      expect.objectContaining(stretch(1, 27, 0, 26, 0, '1.516667')),
    ]);
    const utilization = await api('GET', `/gpu/utilization?teamId=${ids.scraped}&${range}`);
    expect(utilization.body.data.hours.map((hour: { activeMinutes: number; idleHeldMinutes: number; idleMinutes: number }) => [hour.activeMinutes, hour.idleHeldMinutes, hour.idleMinutes])).toEqual([
      [18, 10, 31],
      [0, 0, 9],
    ]);
    const waste = await api('GET', `/gpu/waste?teamId=${ids.scraped}&${range}`);
    expect(waste.body.data.total).toEqual({ heldMinutes: 10, idleMinutes: 40, wasted: '2.916667', unpricedMinutes: 0 });
    expect(waste.body.data.processes).toEqual([expect.objectContaining({ pid: null, processName: null, heldMinutes: 10, wasted: '0.583333' })]);
  }, 180_000);

  it('takes the readings the shipped agent pushes: nvidia-smi run for each, one push of each kind, the key never printed', async () => {
    const teamId = (await api('POST', '/team/', { name: 'Agent fleet', description: '' })).body.data.id;
    const key = (await api('POST', '/gpu/ingest-keys', { teamId, name: 'agent' })).body.data.key as string;
    // A stand-in nvidia-smi answering the agent's queries with the capture's busy minutes: its fields, in its format.
    const dir = await mkdtemp(path.join(tmpdir(), 'spendgate-agent-'));
    const rows = capture.dcgmTimeline.slice(120, 123).map(({ at, reading }) => {
      const time = new Date(at).toISOString().replace('T', ' ').replace('Z', '').replaceAll('-', '/');
      return {
        gpu: `${time}, ${reading.index}, ${reading.uuid}, ${reading.model}, ${reading.utilizationPct} %, ${reading.memoryUsedMiB} MiB, ${reading.memoryTotalMiB} MiB, ${reading.powerW.toFixed(2)} W`,
        app: `${time}, ${reading.uuid}, 607, python3, 39278 MiB`,
      };
    });
    await writeFile(path.join(dir, 'gpu-rows'), `${rows.map((row) => row.gpu).join('\n')}\n`);
    await writeFile(path.join(dir, 'app-rows'), `${rows.map((row) => row.app).join('\n')}\n`);
    await writeFile(path.join(dir, 'n'), '0');
    const fake = path.join(dir, 'nvidia-smi');
    await writeFile(
      fake,
      [
        '#!/bin/sh',
        `cd '${dir}'`,
        'case "$1" in',
        '  --query-gpu=timestamp,index,uuid,name,utilization.gpu,memory.used,memory.total,power.draw) n=$(($(cat n) + 1)); echo "$n" > n; sed -n "$(cat n)p" gpu-rows ;;',
        '  --query-compute-apps=timestamp,gpu_uuid,pid,process_name,used_memory) sed -n "$(cat n)p" app-rows ;;',
        '  *) echo "unexpected query $1" >&2; exit 2 ;;',
        'esac',
      ].join('\n'),
    );
    await chmod(fake, 0o755);
    const agent = new URL('../../tools/gpu-agent/spendgate-gpu-agent.sh', import.meta.url).pathname;
    const run = await promisify(execFile)('sh', [agent, '--once'], {
      env: { PATH: process.env.PATH, SPENDGATE_URL: spendgate.url, SPENDGATE_GPU_KEY: key, SPENDGATE_CLUSTER: 'agents', SPENDGATE_HOST: 'gpu-node-9', SPENDGATE_INTERVAL: '0', SPENDGATE_PUSH_EVERY: '3', NVIDIA_SMI: fake },
    });
    await rm(dir, { recursive: true, force: true });
    expect(run.stderr).toBe('');
    expect(`${run.stdout}${run.stderr}`).not.toContain(key.slice(13));
    expect(await samplesOf(teamId)).toBe(3);
    const settings = await api('GET', `/gpu/settings?teamId=${teamId}`);
    expect(settings.body.data.clusters.map((cluster: { name: string }) => cluster.name)).toEqual(['agents']);
    expect(settings.body.data.ingestKeys[0].lastUsedAt).not.toBeNull();
    const devices = await spendgate.app.runtime.stores.sql.db.selectFrom('gpu_devices').select(['host', 'model']).where('team_id', '=', teamId).execute();
    expect(devices).toEqual([{ host: 'gpu-node-9', model: 'NVIDIA H200' }]);
    const processes = await spendgate.app.runtime.stores.sql.db.selectFrom('gpu_process_minutes').innerJoin('gpu_devices', 'gpu_devices.id', 'gpu_process_minutes.gpu_id').select(['pid', 'process_name']).distinct().where('gpu_devices.team_id', '=', teamId).execute();
    expect(processes).toEqual([{ pid: 607, process_name: 'python3' }]);
  });

  it('answers a bad batch 400 naming its first bad line, and stores nothing of it', async () => {
    const [header, good] = capture.gpuBatches(1)[0]!.split('\n');
    const before = await samplesOf(ids.pushed);
    const cases: [string, string, string, string][] = [
      ['gpus', [header, good, good!.replace(/^[^,]+/, 'yesterday')].join('\n'), 'body', 'body: line 3: timestamp: not a time'],
      ['gpus', [header, good!.replace(' 0 %', ' 140 %')].join('\n'), 'body', 'body: line 2: utilization.gpu: out of range'],
      ['gpus', '', 'body', 'body: the batch is empty'],
      ['compute-apps', `${capture.computeApps.split('\n')[0]}\n2026/11/26 03:00:00.000, ${CAPTURE_GPU_UUID}, not-a-pid, python3, 10 MiB`, 'body', 'body: line 2: pid: not a process id'],
    ];
    for (const [kind, body, field, message] of cases) {
      const answer = await push(ids.key, kind, body);
      expect([answer.status, answer.body.field, answer.body.message], body.slice(0, 80)).toEqual([400, field, message]);
    }
    expect(await samplesOf(ids.pushed)).toBe(before);
    expect((await push(ids.key, 'gpu', good!)).body.field).toBe('kind');
    expect((await push(ids.key, 'gpus', good!, 'host=h1')).body.field).toBe('cluster');
    expect((await push(ids.key, 'gpus', good!, 'cluster=training')).body.field).toBe('host');
    expect((await push(ids.key, 'gpus', JSON.stringify({ csv: good }), 'cluster=training&host=h1', 'application/json')).status).toBe(400);
    expect((await push(ids.key, 'gpus', `${header}\n${`${good}\n`.repeat(6_000)}`)).status).toBe(413);
    // No sample of the capture's minutes changed: the replay's figures stand.
    expect((await api('GET', `/gpu/waste?teamId=${ids.pushed}&${range}`)).body.data.total.wasted).toBe('2.916667');
  });

  it('answers 401 without a valid ingest key: absent, malformed, never issued, an application key, revoked', async () => {
    const batch = capture.gpuBatches(1)[0]!;
    for (const key of [undefined, 'nope', generateIssuedKey(GPU_INGEST_KEY_PREFIX).plaintext, generateIssuedKey().plaintext]) {
      const answer = await push(key, 'gpus', batch);
      expect([answer.status, answer.body.code], String(key)).toEqual([401, 'unauthorized']);
    }
    const spare = await api('POST', '/gpu/ingest-keys', { teamId: ids.pushed, name: 'spare' });
    expect((await push(spare.body.data.key, 'gpus', batch)).status).toBe(200);
    expect((await api('DELETE', `/gpu/ingest-keys/${spare.body.data.id}?teamId=${ids.pushed}`)).status).toBe(200);
    const revoked = await push(spare.body.data.key, 'gpus', batch);
    expect([revoked.status, revoked.body.message]).toEqual([401, 'This GPU ingest key is not valid: it was revoked, or never issued']);
  });

  it("never shows a team's GPUs to another team, even one pushing the same GPU", async () => {
    for (const route of ['settings', 'idle', 'waste', 'heatmap', 'utilization', 'power']) {
      const answer = await api('GET', `/gpu/${route}?teamId=${ids.pushed}`, undefined, outsider.token);
      expect(answer.status, route).toBe(404);
    }
    expect((await api('DELETE', `/gpu/exporters/${ids.exporter}?teamId=${outsider.teamId}`, undefined, outsider.token)).status).toBe(404);
    expect((await api('DELETE', `/gpu/ingest-keys/${ids.keyId}?teamId=${outsider.teamId}`, undefined, outsider.token)).status).toBe(404);
    outsider.key = (await api('POST', '/gpu/ingest-keys', { teamId: outsider.teamId, name: 'theirs' }, outsider.token)).body.data.key;
    await api('PUT', '/gpu/settings', { teamId: outsider.teamId, idleBelowPct: 5, idleAfterMinutes: 5 }, outsider.token);
    expect((await push(outsider.key, 'gpus', capture.gpuBatches(300)[0]!)).body.data).toEqual({ kind: 'gpus', gpus: 1, samples: 268, processes: 0 });
    await spendgate.app.runtime.stores.queue.drain();
    const theirs = await api('GET', `/gpu/waste?teamId=${outsider.teamId}&${range}`, undefined, outsider.token);
    expect(theirs.body.data.gpus.map((gpu: { cluster: string }) => gpu.cluster)).toEqual(['training']);
    expect(theirs.body.data.processes).toEqual([expect.objectContaining({ pid: null })]);
    expect(theirs.body.data.total.wasted).toBeNull();
    // Ours are as they were: our process, our prices.
    const ours = await api('GET', `/gpu/waste?teamId=${ids.pushed}&${range}`);
    expect(ours.body.data.total.wasted).toBe('2.916667');
    expect(ours.body.data.processes).toEqual([expect.objectContaining({ pid: 607 })]);
  });

  it('answers 403 on every call for a team whose plan is not Enterprise, its key included', async () => {
    const message = 'GPU infrastructure analytics is part of the Enterprise plan; the Free Trial plan does not include it';
    const calls: [string, string, unknown?][] = [
      ['GET', `/gpu/settings?teamId=${trial.teamId}`],
      ['PUT', '/gpu/settings', { teamId: trial.teamId, idleBelowPct: 5, idleAfterMinutes: 30 }],
      ['PUT', '/gpu/prices', { teamId: trial.teamId, prices: [] }],
      ['POST', '/gpu/ingest-keys', { teamId: trial.teamId, name: 'agent' }],
      ['POST', '/gpu/exporters', { teamId: trial.teamId, cluster: 'c', url: dcgm.metricsUrl }],
      ['GET', `/gpu/utilization?teamId=${trial.teamId}`],
      ['GET', `/gpu/heatmap?teamId=${trial.teamId}`],
      ['GET', `/gpu/idle?teamId=${trial.teamId}`],
      ['GET', `/gpu/power?teamId=${trial.teamId}`],
      ['GET', `/gpu/waste?teamId=${trial.teamId}`],
    ];
    for (const [method, route, body] of calls) {
      const answer = await api(method, route, body, trial.token);
      expect([answer.status, answer.body.message, (answer.body as { code?: string }).code], route).toEqual([403, message, 'plan_required']);
    }
    // A key issued on Enterprise stops working when the plan ends.
    await upsertSubscription(spendgate.app.runtime.stores.sql.db, { userId: admin.userId, planSlug: 'growth', status: 'active', trialEnd: null });
    const pushed = await push(ids.key, 'gpus', capture.gpuBatches(1)[0]!);
    expect([pushed.status, pushed.body.message]).toEqual([403, 'GPU infrastructure analytics is part of the Enterprise plan; the Growth plan does not include it']);
    await upsertSubscription(spendgate.app.runtime.stores.sql.db, { userId: admin.userId, planSlug: 'enterprise', status: 'active', trialEnd: null });
  });

  it('refuses an exporter on a private address when saved, and one whose name resolves to one when scraped', async () => {
    for (const url of ['http://10.1.2.3:9400/metrics', 'http://localhost:9400/metrics', 'http://[::1]:9400/metrics', 'ftp://dcgm.example/metrics']) {
      const answer = await api('POST', '/gpu/exporters', { teamId: ids.scraped, cluster: 'inference', url });
      expect([answer.status, answer.body.field], url).toEqual([400, 'url']);
    }
    expect((await api('POST', '/gpu/exporters', { teamId: ids.scraped, cluster: 'inference', url: 'http://10.1.2.3:9400/metrics' })).body.message).toBe(
      'url: must not point to a private, loopback or link-local address',
    );
    // Saved while its name does not resolve; at scrape time it resolves to a private address, and the scrape is refused before a byte is sent.
    const saved = await api('POST', '/gpu/exporters', { teamId: ids.scraped, cluster: 'inference', url: 'http://dcgm.rebound.invalid:9400/metrics' });
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    await spendgate.app.runtime.stores.queue.drain();
    const outbound = createOutboundGuard({ allowedHosts: [{ host: '127.0.0.1', port: undefined }], resolve: async () => ['10.0.0.7'] });
    await createGpuScrapeProcessor({ sql: spendgate.app.runtime.stores.sql, outbound, queue: spendgate.app.runtime.stores.queue })({ targetId: saved.body.data.id });
    await outbound.dispatcher.destroy();
    const exporters = (await api('GET', `/gpu/settings?teamId=${ids.scraped}`)).body.data.exporters as { id: string; lastError: string | null }[];
    expect(exporters.find((exporter) => exporter.id === saved.body.data.id)!.lastError).toMatch(/^The exporter could not be reached: .*dcgm\.rebound\.invalid:9400 resolves to a private, loopback or link-local address$/);
  });
});
