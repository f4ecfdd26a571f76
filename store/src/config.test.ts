import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseEnv } from './config.ts';
import { parseRedisUrl } from './redis-connection.ts';

describe('configuration', () => {
  const dirs: string[] = [];
  const tempDir = async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'spendgate-config-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('has the documented defaults', () => {
    expect(parseEnv({})).toMatchObject({ PORT: 3000, DATA_DIR: './data', HOST: '127.0.0.1', UPSTREAM_TIMEOUT_MS: 30_000 });
  });

  it.each([
    [{ PORT: 'abc' }, 'Invalid configuration: PORT must be a whole number from 0 to 65535 (got "abc")'],
    [{ PORT: '70000' }, 'Invalid configuration: PORT must be a whole number from 0 to 65535 (got "70000")'],
    [{ DATABASE_URL: 'mysql://x' }, 'Invalid configuration: DATABASE_URL must be a URL starting with postgres:// or postgresql://'],
    [{ DATABASE_READ_URL: 'postgres://r1/db,mysql://r2/db' }, 'Invalid configuration: DATABASE_READ_URL must list URLs starting with postgres:// or postgresql://, separated by commas'],
    [{ DATABASE_READ_MAX_LAG_SECONDS: '0' }, 'Invalid configuration: DATABASE_READ_MAX_LAG_SECONDS must be a whole number from 1 to 3600'],
    [{ REDIS_URL: 'nope' }, 'Invalid configuration: REDIS_URL'],
    [{ REDIS_URL: 'redis+cluster://127.0.0.1' }, 'Invalid configuration: REDIS_URL must be a URL starting with redis:// or rediss://, or redis+cluster://host:port[,host:port…]'],
    [{ MASTER_KEY: 'c2hvcnQ=' }, 'Invalid configuration: MASTER_KEY must be 32 bytes, base64-encoded'],
    [{ JWT_SECRET: 'short' }, 'Invalid configuration: JWT_SECRET must be at least 32 characters'],
    [{ LOG_LEVEL: 'loud' }, 'Invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent'],
    [{ STRIPE_API_URL: 'ftp://stripe' }, 'Invalid configuration: STRIPE_API_URL must be a URL starting with https:// or http://'],
  ])('stops on %j with one line naming the variable', (env, message) => {
    expect(() => parseEnv(env)).toThrow(ConfigError);
    expect(() => parseEnv(env)).toThrow(message);
  });

  it('reads DATABASE_READ_URL as one or more replicas, none by default', () => {
    expect(parseEnv({}).DATABASE_READ_URL).toEqual([]);
    expect(parseEnv({}).DATABASE_READ_MAX_LAG_SECONDS).toBe(30);
    expect(parseEnv({ DATABASE_READ_URL: 'postgres://r1:5432/db, postgresql://r2:5432/db' }).DATABASE_READ_URL).toEqual(['postgres://r1:5432/db', 'postgresql://r2:5432/db']);
  });

  it('reads REDIS_URL as one Redis server or the nodes of a Redis Cluster', () => {
    expect(parseEnv({ REDIS_URL: 'redis+cluster://127.0.0.1:7100,[::1]:7101' }).REDIS_URL).toBe('redis+cluster://127.0.0.1:7100,[::1]:7101');
    expect(parseRedisUrl('redis://127.0.0.1:6379/2')).toEqual({ kind: 'server', url: 'redis://127.0.0.1:6379/2' });
    expect(parseRedisUrl('redis+cluster://sg:p%40ss@10.0.0.1:6379,10.0.0.2:6380')).toEqual({
      kind: 'cluster',
      nodes: [{ host: '10.0.0.1', port: 6379 }, { host: '10.0.0.2', port: 6380 }],
      username: 'sg',
      password: 'p@ss',
    });
    for (const wrong of ['redis+cluster://', 'redis+cluster://10.0.0.1:6379/0', 'redis+cluster://10.0.0.1:6379,', 'http://10.0.0.1:6379']) {
      expect(parseRedisUrl(wrong), wrong).toBeUndefined();
    }
  });

  it("names a wrong secret without repeating it, and reads Stripe's settings", () => {
    for (const [name, value] of [['STRIPE_SECRET_KEY', 'pk_test_publishable123'], ['STRIPE_WEBHOOK_SECRET', 'secret123'], ['JWT_SECRET', 'short-secret']] as const) {
      expect(() => parseEnv({ [name]: value })).toThrow(`Invalid configuration: ${name} must`);
      expect(() => parseEnv({ [name]: value })).not.toThrow(value);
    }
    const parsed = parseEnv({ STRIPE_SECRET_KEY: 'sk_test_abc123', STRIPE_WEBHOOK_SECRET: 'whsec_abc123', STRIPE_API_URL: 'http://127.0.0.1:12111' });
    expect([parsed.STRIPE_SECRET_KEY, parsed.STRIPE_WEBHOOK_SECRET, parsed.STRIPE_API_URL]).toEqual(['sk_test_abc123', 'whsec_abc123', 'http://127.0.0.1:12111']);
    expect(parseEnv({}).STRIPE_API_URL).toBe('https://api.stripe.com');
  });

  it('reads UPSTREAM_ALLOWED_HOSTS as hosts with an optional port, IP addresses as a URL writes them', () => {
    expect(parseEnv({ UPSTREAM_ALLOWED_HOSTS: '127.0.0.1, 10.0.0.5:11434,[::1]:8000, fd00::7 ,LLM.internal.:8080,0x7f.2' }).UPSTREAM_ALLOWED_HOSTS).toEqual([
      { host: '127.0.0.1', port: undefined },
      { host: '10.0.0.5', port: 11434 },
      { host: '::1', port: 8000 },
      { host: 'fd00::7', port: undefined },
      { host: 'llm.internal', port: 8080 },
      { host: '127.0.0.2', port: undefined },
    ]);
    expect(parseEnv({}).UPSTREAM_ALLOWED_HOSTS).toEqual([]);
    for (const wrong of ['10.0.0.5:99999', 'http://10.0.0.5', 'user@10.0.0.5', '10.0.0.5:']) {
      expect(() => parseEnv({ UPSTREAM_ALLOWED_HOSTS: `127.0.0.1,${wrong}` })).toThrow(
        `Invalid configuration: UPSTREAM_ALLOWED_HOSTS must list hosts, each a name or IP address with an optional :port, separated by commas ("${wrong}" is not one)`,
      );
    }
  });

  it('generates secrets into DATA_DIR once and reads them back', async () => {
    const dataDir = await tempDir();
    const first = await loadConfig({ DATA_DIR: dataDir });
    const second = await loadConfig({ DATA_DIR: dataDir });
    expect(first.secrets.masterKey).toHaveLength(32);
    expect(first.secrets.jwtSecret.length).toBeGreaterThanOrEqual(32);
    expect(second.secrets.jwtSecret).toBe(first.secrets.jwtSecret);
    expect(second.secrets.masterKey.equals(first.secrets.masterKey)).toBe(true);
    const file = path.join(dataDir, 'secrets.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toHaveProperty('jwtSecret', first.secrets.jwtSecret);
  });

  it('prefers secrets from the environment and then writes none', async () => {
    const dataDir = await tempDir();
    const masterKey = Buffer.alloc(32, 7).toString('base64');
    const config = await loadConfig({ DATA_DIR: dataDir, JWT_SECRET: 'x'.repeat(40), MASTER_KEY: masterKey });
    expect(config.secrets.masterKey.toString('base64')).toBe(masterKey);
    await expect(stat(path.join(dataDir, 'secrets.json'))).rejects.toThrow();
  });
});
