// Lua scripts for the Redis stores: each kept in .lua files beside its module and read
// once, when the module loads; sent by SHA, and in full the first time Redis does not
// know them (NOSCRIPT), so each call normally ships only the hash.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ReplyError } from 'ioredis';
import type { RedisConnection } from './redis-connection.ts';

export interface LuaScript {
  source: string;
  sha: string;
}

/**
 * The text of a Lua file, named beside the module that reads it. The server bundles
 * (gateway/bundle.mjs) copy every .lua file beside them, where the same URL points.
 * @example readLuaFile(new URL('./ledger-reserve.lua', import.meta.url))
 */
export function readLuaFile(url: URL): string {
  return readFileSync(url, 'utf8');
}

/** One script from Lua texts in order (shared helpers first). */
export function luaScript(...parts: string[]): LuaScript {
  const source = parts.join('\n');
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

export async function runScript(redis: RedisConnection, script: LuaScript, keys: string[], args: string[]): Promise<unknown> {
  try {
    return await redis.evalsha(script.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof ReplyError && (error as Error).message.startsWith('NOSCRIPT'))) throw error;
    return redis.eval(script.source, keys.length, ...keys, ...args);
  }
}
