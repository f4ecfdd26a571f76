// Lua scripts for the Redis stores: each kept in .lua files beside its module and read
// once, when the module loads; run through ioredis's script commands (defineCommand),
// which send a script in full (EVAL) the first time it goes down each socket and by
// SHA (EVALSHA) after that.
//
// Sending it in full first keeps a connection's commands in order. Were a script sent
// by SHA to a server that does not know it (a new server, a cluster node never sent it,
// a replica just promoted), the NOSCRIPT answer and the EVAL sent after it would let
// every command sent meanwhile run first — and the ledger's leases rely on Redis
// running one connection's commands in the order they were sent (redis-ledger.ts).
// Only a SCRIPT FLUSH on a live connection still costs that one reordering.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
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

/** How the name of a script's command on a connection starts (its SHA follows). */
export const SCRIPT_COMMAND_PREFIX = 'spendgateScript';

type ScriptCommand = (numberOfKeys: number, ...keysAndArgs: string[]) => Promise<unknown>;

/** Runs `script`, defining it on the connection the first time (see the top of this file). */
export function runScript(redis: RedisConnection, script: LuaScript, keys: string[], args: string[]): Promise<unknown> {
  const name = `${SCRIPT_COMMAND_PREFIX}${script.sha}`;
  const commands = redis as unknown as Record<string, ScriptCommand | undefined>;
  if (commands[name] === undefined) redis.defineCommand(name, { lua: script.source });
  return commands[name]!(keys.length, ...keys, ...args);
}
