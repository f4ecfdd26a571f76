// /api/usage/cost/forecast: forecasts of daily spend (spec §5) — a caller's own daily
// costs forecast on the spot (POST) and the forecasts Spendgate keeps for a team or group.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { FORECAST_LIMITS, type ForecastService, forecastDailyCosts } from '../../control/forecasts.ts';
import { useZod } from '../../zod-provider.ts';
import { answer, CostForecast, StoredForecast } from '../answers.ts';
import { ok } from '../reply.ts';
import { IsoDate, id } from '../schemas.ts';
import { signedIn } from '../session.ts';

/** A day's cost: the caller's own amount, at most a trillion, never negative. */
const DailyCost = z.strictObject({
  date: IsoDate,
  cost: z.number({ error: 'must be a number' }).finite('must be a finite number').min(0, 'must not be negative').max(1e12, 'must be at most 1000000000000'),
});

const ForecastBody = z.strictObject({
  historicalData: z
    .array(DailyCost, { error: 'must be a list of {date, cost}' })
    .min(1, 'must hold at least one day')
    .max(FORECAST_LIMITS.historyDays, `must hold at most ${FORECAST_LIMITS.historyDays} days`)
    .superRefine((days, context) => {
      if (days.length === 0) return;
      for (let i = 1; i < days.length; i++) {
        if ((days[i] as z.infer<typeof DailyCost>).date <= (days[i - 1] as z.infer<typeof DailyCost>).date) {
          context.addIssue({ code: 'custom', path: [i, 'date'], message: 'must be after the previous day (dates ascending, each once)' });
          return;
        }
      }
      const span = (Date.parse((days[days.length - 1] as { date: string }).date) - Date.parse((days[0] as { date: string }).date)) / 86_400_000 + 1;
      if (span > FORECAST_LIMITS.historyDays) {
        context.addIssue({ code: 'custom', message: `must span at most ${FORECAST_LIMITS.historyDays} days` });
      }
    }),
  daysToForecast: z
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(FORECAST_LIMITS.daysToForecast, `must be at most ${FORECAST_LIMITS.daysToForecast}`),
});

const StoredQuery = z
  .object({
    teamId: id('team').optional(),
    groupId: id('synthetic group').optional(),
    period: z
      .string()
      .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be a month as yyyy-mm')
      .optional(),
  })
  .refine((q) => q.teamId !== undefined || q.groupId !== undefined, { path: ['teamId'], message: 'teamId or groupId is required' });

export const forecastRoutes = (services: { forecasts: ForecastService }): FastifyPluginAsync => async (app) => {
  const api = useZod(app);
  api.post(
    '/',
    {
      schema: {
        summary:
          'Forecasts daily costs: the next daysToForecast days after historicalData (dates ascending; a missing day is a day without spend), each with 80 % and 95 % intervals, and the method used (weekly seasonality detected; a labelled seasonal-naive fallback for short histories)',
        body: ForecastBody,
        response: { 200: answer(CostForecast) },
      },
    },
    async (request) => ok(await forecastDailyCosts(request.body.historicalData, request.body.daysToForecast)),
  );
  api.get(
    '/',
    {
      schema: {
        summary:
          'The stored forecast of a team’s (its admins) or a group’s month (period=yyyy-mm, default this month): actual so far, the daily forecast with 80/95 % bands, the month-end projection, the month budget if any, and the 8-week backtest (MASE, coverage, ±%)',
        querystring: StoredQuery,
        response: { 200: answer(StoredForecast) },
      },
    },
    async (request) => ok(await services.forecasts.stored(signedIn(request).userId, request.query)),
  );
};
