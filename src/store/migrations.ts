// The data version: the format of the data in a store, one integer recorded in the store itself
// (MetaStore; on Redis the key <prefix>:data-version). CURRENT_DATA_VERSION is the format this code
// reads and writes; MIGRATIONS turn a store from an older format into the next one.
//
// Version 1 is the format written by every Sigil before versions were recorded, so a store with no
// version that holds data (filled by earlier code) is version 1: the first node stamps it so, then
// migrates it. An empty store has nothing to migrate: the first node stamps it with the code's
// version. A node on a store of an older version migrates it at start (migrateStore),
// one node at a time under the store's migration lock; the others wait, then go on at the new
// version. A step may be cut short by a crash: every step is idempotent (safe to run again from the
// start), and the version is recorded after each step, so the next node to start resumes at the
// step that did not finish. A store of a newer version is refused, naming both versions.
import { randomUUID } from "node:crypto";
import type { Logger } from "../log.js";
import { holdsNothing, type Store } from "./port.js";
import { StoreRefusedError } from "./refused.js";

/** The data version this code reads and writes. */
export const CURRENT_DATA_VERSION = 4;

/** The version of a store that records none (empty, or written before versions were recorded). */
export const UNVERSIONED_DATA_VERSION = 1;

export interface Migration {
  from: number;
  to: number;
  /** What it changes, for the log line. */
  what: string;
  /**
   * Rewrites the data from format `from` to format `to`. Idempotent: a crash may cut it short and
   * the next node runs it again from the start. `signal` aborts when the migration lock was lost.
   */
  run(store: Store, ctx: { logger: Logger; signal: AbortSignal }): Promise<void>;
}

/**
 * 1 → 2: the list of users (AccountStore.list) walks an index of usernames, which a Redis store
 * of version 1 does not have (<prefix>:{usernames}); every stored user is put in it. The embedded
 * store's index is its username table already: nothing to do there.
 */
const indexUsernames: Migration = {
  from: 1,
  to: 2,
  what: "index the users by username (the list of users)",
  async run(store, { signal }) {
    if (store.kind === "embedded") return;
    // A backup's items begin with every user (BACKUP_KINDS): read up to the first other item.
    for await (const item of store.backup.items()) {
      if (signal.aborted || item.kind !== "user") return;
      await store.accounts.reindex(item.user);
    }
  },
};

/**
 * 2 → 3: the list of every app (AppStore.list, `sigil apps list`, /admin/apps) walks an index of
 * client ids, which a Redis store of version 2 does not have (<prefix>:{apps}); every stored app is
 * put in it. The embedded store's index is its apps table already: nothing to do there.
 */
const indexApps: Migration = {
  from: 2,
  to: 3,
  what: "index the apps by client id (the list of every app)",
  async run(store, { signal }) {
    if (store.kind === "embedded") return;
    // A backup's items come in BACKUP_KINDS order: apps after users, pictures and emails.
    for await (const item of store.backup.items()) {
      if (signal.aborted) return;
      if (item.kind === "app") await store.apps.reindex(item.app);
      else if (item.kind !== "user" && item.kind !== "picture" && item.kind !== "email") return;
    }
  },
};

/**
 * 3 → 4: a search of users (AccountStore.list with a query) reads an index of search words
 * (store/user-search.ts), which no store of version 3 has (embedded: the table user-search; Redis:
 * <prefix>:{user-search}); every stored user's words are put in it, a batch of users at a time.
 */
const indexUserSearch: Migration = {
  from: 3,
  to: 4,
  what: "index the users' search words (the search of users)",
  async run(store, { signal }) {
    let batch: Promise<void>[] = [];
    // A backup's items begin with every user (BACKUP_KINDS): read up to the first other item.
    for await (const item of store.backup.items()) {
      if (signal.aborted || item.kind !== "user") break;
      batch.push(store.accounts.reindex(item.user));
      if (batch.length >= 200) {
        await Promise.all(batch);
        batch = [];
      }
    }
    await Promise.all(batch);
  },
};

/** Every migration, in order; each `to` is the next one's `from`, the last one's is CURRENT_DATA_VERSION. */
export const MIGRATIONS: readonly Migration[] = [indexUsernames, indexApps, indexUserSearch];

export interface MigrateOptions {
  /** The code's version and migrations (tests inject their own). */
  current?: number;
  migrations?: readonly Migration[];
  /** How long the lock lasts unless renewed (renewed every third of it): a crashed migrator's lock lapses after it. */
  lockTtlMs?: number;
  /** How long a node waits for another node's migration before it gives up. */
  waitMs?: number;
  /** How often a waiting node looks again. */
  pollMs?: number;
}

export interface MigrateResult {
  /** The version found (null: none was recorded) and the version now. */
  found: number | null;
  version: number;
  /** The steps this call ran. */
  ran: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Brings the store to the code's data version, or throws StoreRefusedError naming both versions. */
export async function migrateStore(store: Store, logger: Logger, opts: MigrateOptions = {}): Promise<MigrateResult> {
  const current = opts.current ?? CURRENT_DATA_VERSION;
  const migrations = opts.migrations ?? MIGRATIONS;
  const lockTtlMs = opts.lockTtlMs ?? 30_000;
  const waitMs = opts.waitMs ?? 10 * 60_000;
  const pollMs = opts.pollMs ?? 250;
  const { meta } = store;

  const found = await readVersion(store);
  let version =
    found ??
    (await meta.stampDataVersion(holdsNothing(await store.backup.holdings()) ? current : UNVERSIONED_DATA_VERSION));
  checkNotNewer(version, current);
  if (version === current) return { found, version, ran: 0 };
  stepsFrom(version, current, migrations); // no path: refuse before taking the lock

  const token = randomUUID();
  const giveUpAt = Date.now() + waitMs;
  let waited = false;
  while (!(await meta.takeMigrationLock(token, lockTtlMs))) {
    if (!waited)
      logger.info(
        { version, current },
        `another node is migrating the data (version ${version} to ${current}); waiting`,
      );
    waited = true;
    await sleep(pollMs);
    version = (await readVersion(store)) ?? UNVERSIONED_DATA_VERSION;
    checkNotNewer(version, current);
    if (version === current) return { found, version, ran: 0 };
    if (Date.now() > giveUpAt) {
      throw new StoreRefusedError(
        `waited ${Math.round(waitMs / 1000)} s for another node to migrate the data from version ${version} to ${current}; it still holds the migration lock. Start again once it has finished (or once its lock lapses, ${Math.round(lockTtlMs / 1000)} s after it stopped)`,
      );
    }
  }

  const lost = new AbortController();
  const renew = setInterval(() => {
    meta.renewMigrationLock(token, lockTtlMs).then(
      (held) => held || lost.abort(),
      () => {}, // the store is away for a moment: the next renewal tries again
    );
  }, lockTtlMs / 3);
  let ran = 0;
  try {
    // Read again under the lock: another node may have finished, or gone part of the way.
    version = (await readVersion(store)) ?? UNVERSIONED_DATA_VERSION;
    checkNotNewer(version, current);
    for (const step of stepsFrom(version, current, migrations)) {
      logger.info(
        { from: step.from, to: step.to },
        `migrating the data from version ${step.from} to ${step.to}: ${step.what}`,
      );
      const t0 = Date.now();
      await step.run(store, { logger, signal: lost.signal });
      // A lock that lapsed mid-step may have let another node start the same step: record nothing.
      if (lost.signal.aborted || !(await meta.renewMigrationLock(token, lockTtlMs))) {
        throw new StoreRefusedError(
          `lost the migration lock while migrating the data from version ${step.from} to ${step.to}; start again to resume`,
        );
      }
      await meta.setDataVersion(step.to);
      version = step.to;
      ran++;
      logger.info({ from: step.from, to: step.to, ms: Date.now() - t0 }, `data migrated to version ${step.to}`);
    }
    return { found, version, ran };
  } finally {
    clearInterval(renew);
    await meta.releaseMigrationLock(token).catch(() => {}); // unreleased, it lapses after lockTtlMs
  }
}

async function readVersion(store: Store): Promise<number | null> {
  try {
    return await store.meta.dataVersion();
  } catch (err) {
    if (err instanceof Error && err.name === "StoreUnavailableError") throw err;
    throw new StoreRefusedError(err instanceof Error ? err.message : String(err));
  }
}

function checkNotNewer(version: number, current: number): void {
  if (version > current) {
    throw new StoreRefusedError(
      `the store's data is version ${version}, newer than this Sigil's data version ${current}: run a Sigil release that knows version ${version} (or restore a backup taken before the upgrade)`,
    );
  }
}

/** The steps from `version` to `current`, in order; refuses when one is missing. */
function stepsFrom(version: number, current: number, migrations: readonly Migration[]): Migration[] {
  const steps: Migration[] = [];
  for (let v = version; v < current;) {
    const step = migrations.find((m) => m.from === v);
    if (!step || step.to <= v) {
      throw new StoreRefusedError(
        `the store's data is version ${v}, and this Sigil (data version ${current}) has no migration from it: upgrade through a release that migrates version ${v}`,
      );
    }
    steps.push(step);
    v = step.to;
  }
  return steps;
}
