// Zod pieces the route schemas share, each with a message that names what is expected.
// Every text field goes through `text` (one line) or `multilineText`: no NUL or other
// control characters, which the database refuses and headers cannot carry.
import { GROUP_ROLES, isValidTimeZone, KEY_SETTING_LIMITS, TEAM_ROLES } from '@spendgate/core';
import { z } from 'zod';
import { ModelName } from '../model-id.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../security/password-policy.ts';

/** No control character (NUL, tab, CR, LF, DEL, C1) and no lone surrogate. */
const ONE_LINE = /^[^\p{Cc}\p{Cs}]*$/u;
/** The same, but tabs and line breaks are allowed. */
const MULTI_LINE = /^(?:[\t\n\r]|[^\p{Cc}\p{Cs}])*$/u;
const NO_CONTROL = 'must not contain control characters';
const NO_CONTROL_BUT_BREAKS = 'must not contain control characters other than tabs and line breaks';

/**
 * One line of text, trimmed, at most `max` characters, with no control characters.
 * @example text(200).min(1, 'must not be empty')
 */
export const text = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`).regex(ONE_LINE, NO_CONTROL);

/** Text that may span lines (a description, a message): tabs and line breaks allowed, other control characters not. */
export const multilineText = (max: number) =>
  z.string().trim().max(max, `must be at most ${max} characters`).regex(MULTI_LINE, NO_CONTROL_BUT_BREAKS);


const JSON_DATA_MAX_BYTES = 16_384;

/** Every string in a JSON value (object keys too) passes `test`. Depth is bounded by the body parser. */
function everyString(value: unknown, test: (text: string) => boolean): boolean {
  if (typeof value === 'string') return test(value);
  if (Array.isArray(value)) return value.every((item) => everyString(item, test));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).every(([key, item]) => test(key) && everyString(item, test));
  }
  return true;
}

/**
 * `schema` for free-form JSON a caller stores (account metadata, a contact form's
 * answers): at most 16 KB encoded, every string (keys too) multi-line text without other
 * control characters.
 * @example storedJson(z.record(z.string(), z.unknown()))
 */
export const storedJson = <S extends z.ZodType>(schema: S) =>
  schema
    .refine((value) => everyString(value, (item) => MULTI_LINE.test(item)), NO_CONTROL_BUT_BREAKS)
    .refine((value) => Buffer.byteLength(JSON.stringify(value) ?? '') <= JSON_DATA_MAX_BYTES, `must be at most ${JSON_DATA_MAX_BYTES / 1024} KB of JSON`);

export const Email = z.string().trim().toLowerCase().max(254, 'must be at most 254 characters').pipe(z.email('must be a valid email'));
export const Password = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `must be at most ${PASSWORD_MAX_LENGTH} characters`);
export const Name = text(200).min(1, 'must not be empty');
export const Description = multilineText(2000);
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
            .array(ModelName)
            .max(KEY_SETTING_LIMITS.maxFallbacks, `must name at most ${KEY_SETTING_LIMITS.maxFallbacks} models`)
            .optional(),
        },
        { error: 'takes weights and fallbacks' },
      )
      .optional(),
    modelOverrides: z
      .array(
        z.strictObject({ replace: ModelName, with: ModelName, connectionId: id('connection').optional() }, { error: 'takes replace, with and connectionId' }),
      )
      .max(KEY_SETTING_LIMITS.maxModelOverrides, `must hold at most ${KEY_SETTING_LIMITS.maxModelOverrides} overrides`)
      .optional(),
    maxOutputTokens: z
      .number({ error: 'must be a number' })
      .int('must be a whole number')
      .positive('must be at least 1')
      .max(KEY_SETTING_LIMITS.maxOutputTokens, `must be at most ${KEY_SETTING_LIMITS.maxOutputTokens}`)
      .optional(),
  },
  { error: 'takes rateLimit, timeoutMs, routing, modelOverrides and maxOutputTokens' },
);
