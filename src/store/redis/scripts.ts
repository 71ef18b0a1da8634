// The store's Lua scripts, run by their SHA1 (EVALSHA) rather than by sending their text with
// every call (EVAL). ioredis sends a script's text to a server only when the server answers
// NOSCRIPT (the first call on a connection, after a restart or SCRIPT FLUSH), then goes on by SHA1.
// Sending the text each time cost the node a few hundred bytes to encode and write per call, and
// Redis a SHA1 of it: on a code trade (four scripts), about a fifth of the node's CPU.
import type { Cluster, Redis } from "ioredis";

/** A client the scripts run on (redis-client.ts's RedisClient; named here so that module can import this one). */
type RedisClient = Redis | Cluster;

export interface LuaScript {
  /** The name ioredis gives the command on a client (defineCommand). */
  readonly name: string;
  readonly keys: number;
  readonly lua: string;
}

const all: LuaScript[] = [];

/** A script over its first `keys` arguments as KEYS, the rest as ARGV. */
export function luaScript(keys: number, lua: string): LuaScript {
  const s = { name: `sigilScript${all.length + 1}`, keys, lua };
  all.push(s);
  return s;
}

/**
 * Defines every script on a client (createRedisClient does, before its first command). They must be
 * there before a command is queued: ioredis's pipelines (the automatic one included) learn a
 * client's scripts when they are made, and one that meets a script it does not know cannot load it
 * into a server that lacks it (NOSCRIPT, and the pipeline's other replies lost with it).
 */
export function defineScripts(redis: RedisClient): void {
  const commands = redis as unknown as Record<string, unknown>;
  for (const s of all)
    if (commands[s.name] === undefined) redis.defineCommand(s.name, { numberOfKeys: s.keys, lua: s.lua });
}

type Runner = (...args: Array<string | number>) => Promise<unknown>;

/** Runs a script on a client (or Cluster): its keys, then its arguments. */
export function runScript(redis: RedisClient, s: LuaScript, ...args: Array<string | number>): Promise<unknown> {
  const commands = redis as unknown as Record<string, Runner | undefined>;
  const run = commands[s.name];
  // A client made before the script's module was loaded: defining it now could lose replies.
  if (run === undefined) throw new Error(`Redis script ${s.name} was not defined on this client`);
  return run.apply(redis, args);
}
