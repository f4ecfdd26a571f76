// Zod pieces the route schemas share, each with a message that names what is expected.
import { GROUP_ROLES, isValidTimeZone, KEY_SETTING_LIMITS, TEAM_ROLES } from '@spendgate/core';
import { z } from 'zod';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../security/password-policy.ts';

export const Email = z.string().trim().toLowerCase().max(254, 'must be at most 254 characters').pipe(z.email('must be a valid email'));
export const Password = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `must be at most ${PASSWORD_MAX_LENGTH} characters`);
export const Name = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
export const Description = z.string().trim().max(2000, 'must be at most 2000 characters');
export const id = (what: string) => z.uuid(`must be a ${what} id`);
export const TeamRole = z.enum(TEAM_ROLES, { error: `must be one of ${TEAM_ROLES.join(', ')}` });
export const GroupRole = z.enum(GROUP_ROLES, { error: `must be one of ${GROUP_ROLES.join(', ')}` });
export const Otp = z.string().trim().regex(/^\d{6}$/, 'must be the 6-digit code from the email');

export const IsoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date as yyyy-mm-dd')
  .refine((value) => {
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
  }, 'must be a real calendar date');

/** Optional date range; both ends default (last 30 days up to today). */
export const DateRangeQuery = z
  .object({ startDate: IsoDate.optional(), endDate: IsoDate.optional() })
  .refine((q) => !q.startDate || !q.endDate || q.startDate <= q.endDate, { path: ['endDate'], message: 'must not be before startDate' });

export const TimeZone = z
  .string()
  .min(1, 'must not be empty')
  .max(100, 'is too long')
  .refine(isValidTimeZone, 'must be an IANA time zone such as Europe/London');

const perMinute = z
  .number({ error: 'must be a number' })
  .int('must be a whole number')
  .positive('must be at least 1')
  .max(KEY_SETTING_LIMITS.maxPerMinute, `must be at most ${KEY_SETTING_LIMITS.maxPerMinute}`);
const weight = z.number({ error: 'must be a number' }).min(0, 'must not be negative').max(1000, 'must be at most 1000');

/** What a team sets on an issued key (see core's KeySettings). */
export const KeySettings = z.strictObject(
  {
    rateLimit: z
      .strictObject({ requestsPerMinute: perMinute.optional(), tokensPerMinute: perMinute.optional() }, { error: 'takes only requestsPerMinute and tokensPerMinute' })
      .optional(),
    timeoutMs: z
      .number({ error: 'must be a number' })
      .int('must be a whole number')
      .min(KEY_SETTING_LIMITS.minTimeoutMs, `must be at least ${KEY_SETTING_LIMITS.minTimeoutMs}`)
      .max(KEY_SETTING_LIMITS.maxTimeoutMs, `must be at most ${KEY_SETTING_LIMITS.maxTimeoutMs}`)
      .optional(),
    routing: z
      .strictObject(
        {
          weights: z
            .strictObject({ cost: weight, speed: weight, accuracy: weight }, { error: 'takes cost, speed and accuracy' })
            .refine((w) => w.cost + w.speed + w.accuracy > 0, 'must not all be zero')
            .optional(),
          fallbacks: z
            .array(z.string().trim().min(1, 'must name a model').max(200, 'is too long'))
            .max(KEY_SETTING_LIMITS.maxFallbacks, `must name at most ${KEY_SETTING_LIMITS.maxFallbacks} models`)
            .optional(),
        },
        { error: 'takes weights and fallbacks' },
      )
      .optional(),
  },
  { error: 'takes rateLimit, timeoutMs and routing' },
);
