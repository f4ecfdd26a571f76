// Lua scripts for the Redis stores: sent by SHA, and in full the first time Redis does
// not know them (NOSCRIPT), so each call normally ships only the hash.
import { createHash } from 'node:crypto';
import { type Redis, ReplyError } from 'ioredis';

export interface LuaScript {
  source: string;
  sha: string;
}

export function luaScript(source: string): LuaScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

export async function runScript(redis: Redis, script: LuaScript, keys: string[], args: string[]): Promise<unknown> {
  try {
    return await redis.evalsha(script.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof ReplyError && (error as Error).message.startsWith('NOSCRIPT'))) throw error;
    return redis.eval(script.source, keys.length, ...keys, ...args);
  }
}
