/**
 * The forecast calls in every run mode: POST /usage/cost/forecast answers the spec's shape
 * (dates after the history, bands around the point, the method), labels a short history's
 * fallback, treats a missing day as no spend, refuses bad input naming the field, needs a
 * session, and answers other requests while it computes a long history.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../support/sign-up.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';

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
    const forecast = (body: unknown, as = token) => callApi(spendgate.url, 'POST', '/usage/cost/forecast', { token: as, body });

    beforeAll(async () => {
      spendgate = await startSpendgate(mode, 'forecast');
      token = (await signUp(spendgate.url, `forecast-${mode}@example.com`)).token;
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
    ])('refuses %s with a 400 naming %s', async (_case, body, field) => {
      const answer = await forecast(body);
      expect(answer.status).toBe(400);
      expect(answer.body.success).toBe(false);
      if (field) expect(answer.body.field).toBe(field);
    });

    it('needs a session', async () => {
      const answer = await forecast({ historicalData: history(10), daysToForecast: 3 }, '');
      expect(answer.status).toBe(401);
    });

    it('answers a short forecast while two three-year ones are still computing (it runs in slices)', async () => {
      const finished: string[] = [];
      const long = [1, 2].map((n) =>
        forecast({ historicalData: history(1096), daysToForecast: 366 }).then((answer) => {
          finished.push(`long ${n}`);
          return answer;
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      const short = await forecast({ historicalData: history(10), daysToForecast: 3 });
      finished.push('short');
      const answers = await Promise.all(long);
      expect(short.status).toBe(200);
      for (const answer of answers) expect(answer.body.data.forecast).toHaveLength(366);
      expect(finished[0]).toBe('short');
    });
  });
}
