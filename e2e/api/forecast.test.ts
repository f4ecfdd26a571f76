/**
 * The forecast calls in every run mode: POST /usage/cost/forecast answers the spec's shape
 * (dates after the history, bands around the point, the method), labels a short history's
 * fallback, treats a missing day as no spend, refuses bad input naming the field, needs a
 * session, and answers other requests while it computes a long history. The forecast job,
 * run on 10 weeks of constructed rollups, stores this month's and next month's forecast for
 * the team and its group, with the month-end projection, the month budget and the 8-week
 * backtest, which GET /usage/cost/forecast answers to those who may see them only.
 */
import { randomUUID } from 'node:crypto';
import { insertUsageEvents, sharedLogger } from '@spendgate/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createForecastProcessor } from '../../worker/src/jobs/forecast.ts';
import { signUp } from '../support/sign-up.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { daysAgo, usageEvent } from '../support/usage-events.ts';

const WEEKDAY_SHAPE = [1.2, 1.3, 1.25, 1.2, 1.1, 0.5, 0.45];
/** Daily costs from 2026-01-05 (a Monday): a weekly shape on a rising level. */
function history(days: number) {
  return Array.from({ length: days }, (_, d) => ({
    date: new Date(Date.UTC(2026, 0, 5 + d)).toISOString().slice(0, 10),
    cost: Math.round((20 + d / 10) * (WEEKDAY_SHAPE[d % 7] as number) * 100) / 100,
  }));
}

for (const mode of testModes) {
  describe(`cost forecast (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let token = '';
    let userId = '';
    const forecast = (body: unknown, as = token) => callApi(spendgate.url, 'POST', '/usage/cost/forecast', { token: as, body });

    beforeAll(async () => {
      spendgate = await startSpendgate(mode, 'forecast');
      ({ token, userId } = await signUp(spendgate.url, `forecast-${mode}@example.com`));
    });
    afterAll(() => spendgate?.close());

    it('forecasts the days after the history with 80 and 95 % bands and names the method', async () => {
      const answer = await forecast({ historicalData: history(84), daysToForecast: 14 });
      expect(answer.status).toBe(200);
      const data = answer.body.data;
      expect(data.method).toMatch(/\(7\)/);
      expect(data.fallback).toBe(false);
      expect(data.seasonality).toEqual([7]);
      expect(data.forecast).toHaveLength(14);
      expect(data.forecast[0].date).toBe('2026-03-30');
      expect(data.forecast[13].date).toBe('2026-04-12');
      for (const day of data.forecast) {
        expect(Object.keys(day).sort()).toEqual(['cost', 'date', 'lower80', 'lower95', 'upper80', 'upper95']);
        expect(day.lower95).toBeLessThanOrEqual(day.lower80);
        expect(day.lower80).toBeLessThanOrEqual(day.cost);
        expect(day.cost).toBeLessThanOrEqual(day.upper80);
        expect(day.upper80).toBeLessThanOrEqual(day.upper95);
        expect(Math.round(day.cost * 1e6)).toBe(day.cost * 1e6);
      }
      // The weekly shape carries on: the Saturday (index 5) well under the Friday.
      expect(data.forecast[5].cost).toBeLessThan(0.6 * data.forecast[4].cost);
    });

    it('labels a short history’s seasonal-naive fallback and counts a missing day as no spend', async () => {
      const answer = await forecast({
        historicalData: [
          { date: '2026-02-01', cost: 4 },
          { date: '2026-02-02', cost: 5 },
          { date: '2026-02-04', cost: 6 },
        ],
        daysToForecast: 2,
      });
      expect(answer.status).toBe(200);
      expect(answer.body.data.fallback).toBe(true);
      expect(answer.body.data.method).toBe('seasonal-naive(1) fallback: 4 points');
      expect(answer.body.data.forecast.map((day: { date: string; cost: number }) => [day.date, day.cost])).toEqual([
        ['2026-02-05', 6],
        ['2026-02-06', 6],
      ]);
    });

    it.each([
      ['no history', { daysToForecast: 3 }, 'historicalData'],
      ['an empty history', { historicalData: [], daysToForecast: 3 }, 'historicalData'],
      ['an impossible date', { historicalData: [{ date: '2026-02-30', cost: 1 }], daysToForecast: 3 }, 'historicalData.0.date'],
      ['a negative cost', { historicalData: [{ date: '2026-02-01', cost: -1 }], daysToForecast: 3 }, 'historicalData.0.cost'],
      ['a cost as text', { historicalData: [{ date: '2026-02-01', cost: '1' }], daysToForecast: 3 }, 'historicalData.0.cost'],
      ['dates out of order', { historicalData: [{ date: '2026-02-02', cost: 1 }, { date: '2026-02-01', cost: 1 }], daysToForecast: 3 }, 'historicalData.1.date'],
      ['a repeated date', { historicalData: [{ date: '2026-02-01', cost: 1 }, { date: '2026-02-01', cost: 2 }], daysToForecast: 3 }, 'historicalData.1.date'],
      ['a history spanning six years', { historicalData: [{ date: '2020-01-01', cost: 1 }, { date: '2026-02-01', cost: 2 }], daysToForecast: 3 }, 'historicalData'],
      ['1,097 days', { historicalData: history(1097), daysToForecast: 3 }, 'historicalData'],
      ['no days to forecast', { historicalData: history(10), daysToForecast: 0 }, 'daysToForecast'],
      ['367 days to forecast', { historicalData: history(10), daysToForecast: 367 }, 'daysToForecast'],
      ['half a day', { historicalData: history(10), daysToForecast: 2.5 }, 'daysToForecast'],
      ['an unknown field', { historicalData: history(10), daysToForecast: 3, extra: true }, ''],
    ])('refuses %s with a 400 naming the field', async (_case, body, field) => {
      const answer = await forecast(body);
      expect(answer.status).toBe(400);
      expect(answer.body.success).toBe(false);
      if (field) expect(answer.body.field).toBe(field);
    });

    it('needs a session', async () => {
      const answer = await forecast({ historicalData: history(10), daysToForecast: 3 }, '');
      expect(answer.status).toBe(401);
    });

    it('answers a short forecast and two three-year ones sent at once', async () => {
      // That the short one need not wait for the long ones is the slicing's own test
      // (gateway/src/control/forecasts.test.ts); the order they finish in here is the machine's.
      const [long1, long2, short] = await Promise.all([
        forecast({ historicalData: history(1096), daysToForecast: 366 }),
        forecast({ historicalData: history(1096), daysToForecast: 366 }),
        forecast({ historicalData: history(10), daysToForecast: 3 }),
      ]);
      expect(short.status).toBe(200);
      expect(short.body.data.forecast).toHaveLength(3);
      for (const answer of [long1, long2]) expect(answer.body.data.forecast).toHaveLength(366);
      expect(long1.body.data.forecast).toEqual(long2.body.data.forecast);
    });

    describe('stored forecasts', () => {
      const ids = { team: '', group: '', key: '' };
      /** GBP micros spent each day: a weekly shape (weekends low) on a rising level. */
      const spentOn = new Map<string, bigint>();
      const get = (query: Record<string, string>, as = token) => callApi(spendgate.url, 'GET', `/usage/cost/forecast?${new URLSearchParams(query)}`, { token: as });

      beforeAll(async () => {
        const team = await callApi(spendgate.url, 'POST', '/team/', { token, body: { name: 'Forecasts', description: '' } });
        ids.team = team.body.data.id;
        const group = await callApi(spendgate.url, 'POST', '/synthetic-group', { token, body: { name: 'Support', description: '', teamId: ids.team } });
        ids.group = group.body.data.id;
        const db = spendgate.app.runtime.stores.sql.db;
        ids.key = randomUUID();
        await db
          .insertInto('issued_keys')
          .values({ id: ids.key, team_id: ids.team, group_id: ids.group, connection_id: null, kind: 'optimised', name: 'support', key_hash: `hash-${ids.key}`, key_prefix: 'sg_live_fcast', created_by: userId, settings: '{}' })
          .execute();
        const events = [];
        for (let days = 70; days >= 1; days--) {
          const date = daysAgo(days);
          const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
          const micros = BigInt((weekday === 0 || weekday === 6 ? 400_000 : 2_000_000) + (70 - days) * 10_000);
          spentOn.set(date, micros);
          events.push(usageEvent({ teamId: ids.team, groupId: ids.group, keyId: ids.key }, days, { budget_spend_micros: micros }));
        }
        await insertUsageEvents(db, events);
        await callApi(spendgate.url, 'POST', '/budgets', { token, body: { scope: 'team', scopeId: ids.team, amount: 100, window: 'month', mode: 'soft', alertAt: [80] } });
        await createForecastProcessor({ sql: spendgate.app.runtime.stores.sql, log: sharedLogger() })({ teamId: ids.team });
      });

      it('stores this month’s forecast: actual so far to the micro-unit, the rest forecast, the projection inside its bands', async () => {
        const today = daysAgo(0);
        const answer = await get({ teamId: ids.team });
        expect(answer.status).toBe(200);
        const { period, forecast, budget, backtest } = answer.body.data;
        expect(period).toBe(today.slice(0, 7));
        const expectedActual = [...spentOn].filter(([date]) => date.startsWith(period) && date < today).reduce((sum, [, micros]) => sum + micros, 0n);
        expect(forecast.actualMicros).toBe(expectedActual.toString());
        expect(forecast.method).toMatch(/\(7\)/);
        const days: { date: string; actualMicros: string | null; forecastMicros: string | null }[] = forecast.days;
        expect(days[0]?.date).toBe(`${period}-01`);
        for (const day of days) {
          if (day.date < today) expect(day.actualMicros).toBe((spentOn.get(day.date) ?? 0n).toString());
          else expect(day.forecastMicros).not.toBeNull();
        }
        const forecastSum = days.reduce((sum, day) => sum + BigInt(day.forecastMicros ?? 0), 0n);
        expect(BigInt(forecast.projectedMicros)).toBe(expectedActual + forecastSum);
        expect(BigInt(forecast.lower95Micros)).toBeLessThanOrEqual(BigInt(forecast.lower80Micros));
        expect(BigInt(forecast.lower80Micros)).toBeLessThanOrEqual(BigInt(forecast.projectedMicros));
        expect(BigInt(forecast.projectedMicros)).toBeLessThanOrEqual(BigInt(forecast.upper80Micros));
        expect(BigInt(forecast.upper80Micros)).toBeLessThanOrEqual(BigInt(forecast.upper95Micros));
        expect(budget).toMatchObject({ amountMicros: '100000000', mode: 'soft' });
        // 8 weekly origins of 7 days on a steady weekly series: close, and the bands cover most days.
        expect(backtest).toMatchObject({ weeks: 8, days: 56 });
        expect(backtest.wape).toBeLessThan(0.1);
        expect(backtest.coverage95).toBeGreaterThanOrEqual(0.8);
      });

      it('stores next month, all forecast, and the group’s own forecast', async () => {
        const today = daysAgo(0);
        const [year, month] = today.split('-').map(Number) as [number, number];
        const next = new Date(Date.UTC(year, month, 1)).toISOString().slice(0, 7);
        const answer = await get({ teamId: ids.team, period: next });
        expect(answer.body.data.forecast.actualMicros).toBe('0');
        expect(answer.body.data.forecast.days.every((day: { actualMicros: string | null }) => day.actualMicros === null)).toBe(true);
        const group = await get({ groupId: ids.group });
        expect(group.status).toBe(200);
        expect(group.body.data.groupId).toBe(ids.group);
        // every event is the group's: its actual so far is the team's
        expect(group.body.data.forecast.actualMicros).toBe((await get({ teamId: ids.team })).body.data.forecast.actualMicros);
        expect(group.body.data.budget).toBeNull();
      });

      it('asks the worker for a first forecast when this month has none yet', async () => {
        const team = await callApi(spendgate.url, 'POST', '/team/', { token, body: { name: 'New team', description: '' } });
        const group = await callApi(spendgate.url, 'POST', '/synthetic-group', { token, body: { name: 'New', description: '', teamId: team.body.data.id } });
        const key = randomUUID();
        const db = spendgate.app.runtime.stores.sql.db;
        await db
          .insertInto('issued_keys')
          .values({ id: key, team_id: team.body.data.id, group_id: group.body.data.id, connection_id: null, kind: 'optimised', name: 'new', key_hash: `hash-${key}`, key_prefix: 'sg_live_fnew', created_by: userId, settings: '{}' })
          .execute();
        await insertUsageEvents(db, [3, 2, 1].map((days) => usageEvent({ teamId: team.body.data.id, groupId: group.body.data.id, keyId: key }, days)));
        expect((await get({ teamId: team.body.data.id })).body.data.forecast).toBeNull();
        let forecast = null;
        for (let tries = 0; tries < 100 && forecast === null; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          forecast = (await get({ teamId: team.body.data.id })).body.data.forecast;
        }
        // three days of history: the labelled seasonal-naive fallback
        expect(forecast).toMatchObject({ fallback: true, method: 'seasonal-naive(1) fallback: 3 points' });
      });

      it('answers null for a month not forecast, refuses bad queries naming the field, and hides other teams', async () => {
        expect((await get({ teamId: ids.team, period: '2020-01' })).body.data.forecast).toBeNull();
        const noScope = await get({});
        expect(noScope.status).toBe(400);
        expect(noScope.body.field).toBe('teamId');
        const badPeriod = await get({ teamId: ids.team, period: '2026-13' });
        expect(badPeriod.status).toBe(400);
        expect(badPeriod.body.field).toBe('period');
        const stranger = (await signUp(spendgate.url, `forecast-stranger-${mode}@example.com`)).token;
        expect((await get({ teamId: ids.team }, stranger)).status).toBe(404);
        expect((await get({ groupId: ids.group }, stranger)).status).toBe(404);
      });
    });
  });
}
