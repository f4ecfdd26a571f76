/**
 * Spendgate's configuration: read once from the environment at start, validated,
 * typed. A wrong value stops the process with one line naming the variable.
 *
 * Secrets (JWT signing key, master encryption key) may be given in the environment;
 * when absent they are generated once into DATA_DIR/secrets.json (mode 0600) and read
 * from there on every later start. Nothing secret has a default in code.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { parseRedisUrl } from './redis-connection.ts';

const url = (protocols: string[]) =>
  z.string().refine((value) => {
    try {
      return protocols.includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, `must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`);

/** `192.0.2.53`, `127.0.0.1:5353`, `2001:db8::53`, `[2001:db8::53]:5353`, as node:dns's setServers takes them. */
function isDnsServer(entry: string): boolean {
  const match = /^\[([^\]]+)\]:(\d{1,5})$/.exec(entry) ?? /^([^:]+):(\d{1,5})$/.exec(entry);
  if (!match) return isIP(entry) !== 0;
  const port = Number(match[2]);
  return isIP(match[1]!) !== 0 && port >= 1 && port <= 65_535;
}

/** A host a team's connection may reach although it is private: any port when `port` is undefined. */
export interface AllowedHost {
  /** Lower case, without brackets or a trailing dot; an IP address as the WHATWG URL parser writes it. */
  host: string;
  port: number | undefined;
}

/** `10.0.0.5`, `10.0.0.5:11434`, `[::1]:8000`, `::1`, `llm.internal:8080`; undefined when it is none of these. */
function allowedHost(entry: string): AllowedHost | undefined {
  const match = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry) ?? /^([^:[\]/@?#]+)(?::(\d{1,5}))?$/.exec(entry);
  const bare = !match && entry.split(':').length > 2 ? entry : undefined;
  const host = match?.[1] ?? bare;
  const port = match?.[2] === undefined ? undefined : Number(match[2]);
  if (host === undefined || (port !== undefined && (port < 1 || port > 65_535))) return undefined;
  try {
    const hostname = new URL(`http://${host.includes(':') ? `[${host}]` : host}/`).hostname;
    return { host: hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, ''), port };
  } catch {
    return undefined;
  }
}

const base64Key = z
  .string()
  .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes, base64-encoded');

const integer = (min: number, max: number) => {
  const message = `must be a whole number from ${min} to ${max}`;
  return z.coerce.number({ error: message }).int(message).min(min, message).max(max, message);
};

const EnvSchema = z.object({
  PORT: integer(0, 65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
  /** Read replicas of DATABASE_URL's database, comma-separated: the dashboards', exports' and analytics' reads go to them. */
  DATABASE_READ_URL: z
    .string()
    .default('')
    .transform((value, context) => {
      const urls = value.split(',').map((entry) => entry.trim()).filter(Boolean);
      if (urls.every((entry) => url(['postgres:', 'postgresql:']).safeParse(entry).success)) return urls;
      context.addIssue({ code: 'custom', message: 'must list URLs starting with postgres:// or postgresql://, separated by commas' });
      return z.NEVER;
    }),
  /** A read replica further behind than this is skipped (its reads go to the primary). */
  DATABASE_READ_MAX_LAG_SECONDS: integer(1, 3600).default(30),
  REDIS_URL: z
    .string()
    .refine((value) => parseRedisUrl(value) !== undefined, 'must be a URL starting with redis:// or rediss://, or redis+cluster://host:port[,host:port…]')
    .optional(),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'must be one of fatal, error, warn, info, debug, trace, silent',
    })
    .default('info'),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  MASTER_KEY: base64Key.optional(),
  UPSTREAM_TIMEOUT_MS: integer(1000, 600_000).default(30_000),
  /** Days a usage event is kept (the request log, exports by request); rollups are kept for ever. */
  USAGE_EVENT_RETENTION_DAYS: integer(7, 36_500).default(400),
  /** Days a captured prompt is kept when its team sets none (always at most its plan's maximum). */
  PROMPT_CAPTURE_RETENTION_DAYS: integer(1, 365).default(30),
  /** Hours a raw GPU sample is kept (its minute rollups are kept for ever); at least a day, so an idle window can look back. */
  GPU_SAMPLE_RETENTION_HOURS: integer(24, 8760).default(48),
  /** Hosts a team's connection may point to although they are private or loopback: `host` or `host:port`. */
  UPSTREAM_ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform((value, context) => {
      const entries = value.split(',').map((entry) => entry.trim()).filter(Boolean);
      const hosts = entries.map(allowedHost);
      const wrong = entries.find((_, index) => hosts[index] === undefined);
      if (wrong === undefined) return hosts as AllowedHost[];
      context.addIssue({ code: 'custom', message: `must list hosts, each a name or IP address with an optional :port, separated by commas ("${wrong}" is not one)` });
      return z.NEVER;
    }),
  /** DNS servers for domain-ownership look-ups (`ip`, `ip:port`, `[ipv6]:port`, by commas); the system's when empty. */
  DNS_SERVERS: z
    .string()
    .default('')
    .transform((value, context) => {
      const entries = value.split(',').map((entry) => entry.trim()).filter(Boolean);
      const wrong = entries.find((entry) => !isDnsServer(entry));
      if (wrong === undefined) return entries;
      context.addIssue({ code: 'custom', message: `must list IP addresses, each with an optional :port, separated by commas ("${wrong}" is not one)` });
      return z.NEVER;
    }),
  CONSOLE_DIR: z.string().min(1).default('console/dist'),
  /** Where links in emails point (the console), e.g. https://spendgate.example.com. */
  PUBLIC_URL: url(['http:', 'https:']).optional(),
  /** Mail is sent over SMTP when set; otherwise kept in the outbox and printed to the log. */
  SMTP_URL: url(['smtp:', 'smtps:']).optional(),
  MAIL_FROM: z.string().min(3).default('Spendgate <no-reply@spendgate.local>'),
  /** Twilio's REST API, where SMS alerts are sent (a local fake in tests). */
  TWILIO_API_URL: url(['https:', 'http:']).default('https://api.twilio.com'),
  /** Stripe's API, where billing goes (a local fake in tests). */
  STRIPE_API_URL: url(['https:', 'http:']).default('https://api.stripe.com'),
  /** Stripe's secret (or restricted) key: billing calls Stripe when it is set. Secret: never logged. */
  STRIPE_SECRET_KEY: z.string().regex(/^(sk|rk)_(test|live)_\w+$/, 'must be a Stripe secret key (sk_test_…, sk_live_…, rk_…)').optional(),
  /** The signing secret of Stripe's webhook endpoint (whsec_…): webhooks are taken when it is set. Secret: never logged. */
  STRIPE_WEBHOOK_SECRET: z.string().regex(/^whsec_\w+$/, 'must be a webhook signing secret (whsec_…)').optional(),
  /** Google sign-in is on when the OAuth client id is set. */
  GOOGLE_CLIENT_ID: z.string().min(1).optional(),
  GOOGLE_JWKS_URL: url(['https:', 'http:']).default('https://www.googleapis.com/oauth2/v3/certs'),
  /** Google Identity Services' client library, which draws the console's "Sign in with Google" button (tests serve a stand-in). */
  GOOGLE_SIGN_IN_SCRIPT_URL: url(['https:', 'http:']).default('https://accounts.google.com/gsi/client'),
  /**
   * The operator's own provider accounts that serve optimised keys, as JSON:
   * {"openai": {"apiKey": "sk-…", "baseUrl"?: "…"}, "anthropic": {…}}.
   */
  OPTIMISED_UPSTREAMS: z
    .string()
    .default('{}')
    .transform((value, context) => {
      try {
        return JSON.parse(value) as unknown;
      } catch {
        context.addIssue({ code: 'custom', message: 'must be JSON' });
        return z.NEVER;
      }
    })
    .pipe(
      z.record(
        z.string(),
        z.object(
          { apiKey: z.string().min(1), baseUrl: z.string().optional(), apiVersion: z.string().optional() },
          { error: 'must map provider ids to {apiKey, baseUrl?, apiVersion?}' },
        ),
      ),
    ),
  /** The operator's token for GET /metrics (Authorization: Bearer); without it there is no /metrics and nothing is counted. Secret: never logged. */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Distinct models /metrics names per process; later ones are counted as `other`. */
  METRICS_MODEL_LABELS: integer(1, 1000).default(50),
  /** OTLP/HTTP receiver of traces and metrics (the standard variables): OpenTelemetry is off without one. */
  OTEL_EXPORTER_OTLP_ENDPOINT: url(['http:', 'https:']).optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url(['http:', 'https:']).optional(),
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: url(['http:', 'https:']).optional(),
  OTEL_SERVICE_NAME: z.string().min(1).default('spendgate'),
  /** Milliseconds between two exports of the OpenTelemetry metrics. */
  OTEL_METRIC_EXPORT_INTERVAL: integer(100, 3_600_000).default(60_000),
  /** Accounts (verified emails) that may edit site content such as FAQs. */
  PLATFORM_ADMIN_EMAILS: z
    .string()
    .default('')
    .transform((value) => value.split(',').map((email) => email.trim().toLowerCase()).filter(Boolean)),
});

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** DATABASE_READ_URL's replicas; empty when reads all go to DATABASE_URL. */
  databaseReadUrls: string[];
  databaseReadMaxLagSeconds: number;
  redisUrl: string | undefined;
  logLevel: z.infer<typeof EnvSchema>['LOG_LEVEL'];
  upstreamTimeoutMs: number;
  /** Days a usage event is kept; its rollups are kept for ever. */
  usageEventRetentionDays: number;
  /** Days a captured prompt is kept when its team sets none. */
  promptCaptureRetentionDays: number;
  /** Hours a raw GPU sample is kept; its minute rollups are kept for ever. */
  gpuSampleRetentionHours: number;
  upstreamAllowedHosts: AllowedHost[];
  /** Where domain-ownership TXT look-ups go; empty: the system's resolvers. */
  dnsServers: string[];
  consoleDir: string;
  publicUrl: string;
  mail: MailConfig;
  /** Where SMS alerts go: Twilio's API origin. */
  twilioApiUrl: string;
  /** Stripe: its API origin and, when billing is on, the keys. Secret: never logged. */
  stripe: StripeConfig;
  google: { clientId: string | undefined; jwksUrl: string; signInScriptUrl: string };
  platformAdminEmails: string[];
  /** The gateway's own observability: /metrics (on when it has a token) and OpenTelemetry (on when it has an endpoint). */
  observability: ObservabilityConfig;
  /** Operator upstreams serving optimised keys, by provider id. Secret: never logged. */
  optimisedUpstreams: Record<string, { apiKey: string; baseUrl?: string | undefined; apiVersion?: string | undefined }>;
  secrets: { jwtSecret: string; masterKey: Buffer };
}

export interface ObservabilityConfig {
  /** Bearer token of GET /metrics; undefined: no /metrics (404) and no counting on the hot path. Secret: never logged. */
  metricsToken: string | undefined;
  /** Distinct model names /metrics labels per process before it counts the rest as `other`. */
  metricsModelLabels: number;
  /** Where OTLP/HTTP spans and metrics go; undefined when OpenTelemetry is off. */
  otel: { tracesUrl: string | undefined; metricsUrl: string | undefined; serviceName: string; metricExportIntervalMs: number } | undefined;
}

export interface StripeConfig {
  apiUrl: string;
  secretKey: string | undefined;
  webhookSecret: string | undefined;
}

export interface MailConfig {
  smtpUrl: string | undefined;
  from: string;
}

export class ConfigError extends Error {}

/** Variables whose value a configuration error never repeats. */
const SECRET_VARIABLES = new Set(['JWT_SECRET', 'MASTER_KEY', 'STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET', 'METRICS_TOKEN']);

/** Parses the environment; throws ConfigError naming the first wrong variable (never a secret's value). */
export function parseEnv(env: NodeJS.ProcessEnv) {
  const result = EnvSchema.safeParse(env);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const name = String(issue.path[0]);
    const got = SECRET_VARIABLES.has(name) ? '' : ` (got ${JSON.stringify(env[name])})`;
    throw new ConfigError(`Invalid configuration: ${name} ${issue.message}${got}`);
  }
  return result.data;
}

/**
 * OTLP/HTTP's URLs by the standard variables: a signal's own endpoint as it is, else the
 * general endpoint with `/v1/traces` or `/v1/metrics`; undefined when none is set.
 */
function otelEndpoints(parsed: ReturnType<typeof parseEnv>): ObservabilityConfig['otel'] {
  const base = parsed.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/+$/, '');
  const tracesUrl = parsed.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base && `${base}/v1/traces`);
  const metricsUrl = parsed.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT ?? (base && `${base}/v1/metrics`);
  if (!tracesUrl && !metricsUrl) return undefined;
  return {
    tracesUrl,
    metricsUrl,
    serviceName: parsed.OTEL_SERVICE_NAME,
    metricExportIntervalMs: parsed.OTEL_METRIC_EXPORT_INTERVAL,
  };
}

interface StoredSecrets {
  jwtSecret: string;
  masterKey: string;
}

async function loadOrCreateSecrets(dataDir: string): Promise<StoredSecrets> {
  const file = path.join(dataDir, 'secrets.json');
  try {
    return JSON.parse(await readFile(file, 'utf8')) as StoredSecrets;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secrets: StoredSecrets = {
    jwtSecret: randomBytes(48).toString('base64url'),
    masterKey: randomBytes(32).toString('base64'),
  };
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  return secrets;
}

/** Reads and validates the whole configuration, creating DATA_DIR secrets if needed. */
export async function loadConfig(env: NodeJS.ProcessEnv = process.env): Promise<Config> {
  const parsed = parseEnv(env);
  const dataDir = path.resolve(parsed.DATA_DIR);
  const needStored = !parsed.JWT_SECRET || !parsed.MASTER_KEY;
  const stored = needStored ? await loadOrCreateSecrets(dataDir) : undefined;
  return {
    port: parsed.PORT,
    host: parsed.HOST,
    dataDir,
    databaseUrl: parsed.DATABASE_URL,
    databaseReadUrls: parsed.DATABASE_READ_URL,
    databaseReadMaxLagSeconds: parsed.DATABASE_READ_MAX_LAG_SECONDS,
    redisUrl: parsed.REDIS_URL,
    logLevel: parsed.LOG_LEVEL,
    upstreamTimeoutMs: parsed.UPSTREAM_TIMEOUT_MS,
    usageEventRetentionDays: parsed.USAGE_EVENT_RETENTION_DAYS,
    promptCaptureRetentionDays: parsed.PROMPT_CAPTURE_RETENTION_DAYS,
    gpuSampleRetentionHours: parsed.GPU_SAMPLE_RETENTION_HOURS,
    upstreamAllowedHosts: parsed.UPSTREAM_ALLOWED_HOSTS,
    dnsServers: parsed.DNS_SERVERS,
    consoleDir: path.resolve(parsed.CONSOLE_DIR),
    publicUrl: (parsed.PUBLIC_URL ?? `http://localhost:${parsed.PORT}`).replace(/\/+$/, ''),
    mail: { smtpUrl: parsed.SMTP_URL, from: parsed.MAIL_FROM },
    twilioApiUrl: parsed.TWILIO_API_URL.replace(/\/+$/, ''),
    stripe: { apiUrl: parsed.STRIPE_API_URL.replace(/\/+$/, ''), secretKey: parsed.STRIPE_SECRET_KEY, webhookSecret: parsed.STRIPE_WEBHOOK_SECRET },
    google: { clientId: parsed.GOOGLE_CLIENT_ID, jwksUrl: parsed.GOOGLE_JWKS_URL, signInScriptUrl: parsed.GOOGLE_SIGN_IN_SCRIPT_URL },
    platformAdminEmails: parsed.PLATFORM_ADMIN_EMAILS,
    observability: {
      metricsToken: parsed.METRICS_TOKEN,
      metricsModelLabels: parsed.METRICS_MODEL_LABELS,
      otel: otelEndpoints(parsed),
    },
    optimisedUpstreams: parsed.OPTIMISED_UPSTREAMS,
    secrets: {
      jwtSecret: parsed.JWT_SECRET ?? stored!.jwtSecret,
      masterKey: Buffer.from(parsed.MASTER_KEY ?? stored!.masterKey, 'base64'),
    },
  };
}

/** loadConfig for entry points: a configuration error ends the process with its one line. */
export async function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Promise<Config> {
  try {
    return await loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}
