// `sigil backup --out FILE` and `sigil restore --in FILE [--force]` (docs/cli.md#sigil-backup,
// docs/operations.md#backup-and-restore): a snapshot of either store in one file, and that file
// written into an empty store of either kind (with the same SECRET).
import { randomUUID } from "node:crypto";
import { required, UsageError, type CliCommand } from "./common.js";
import {
  BACKUP_FORMAT,
  BACKUP_FORMAT_VERSION,
  BackupReader,
  type BackupHeader,
  sameSecret,
  secretCheck,
  writeBackup,
} from "../store/backup-file.js";
import { restoreItems } from "../store/backup.js";
import { holdsNothing } from "../store/port.js";
import { CURRENT_DATA_VERSION } from "../store/migrations.js";

export const backup: CliCommand = {
  name: "backup",
  description: "Writes a snapshot of the store to FILE while the service runs.",
  usage: "--out FILE",
  options: { out: { type: "string" } },
  async run({ opened, config, values }) {
    const file = required(values, "out");
    const store = opened.store;
    const header = {
      format: BACKUP_FORMAT,
      format_version: BACKUP_FORMAT_VERSION,
      data_version: (await store.meta.dataVersion()) ?? CURRENT_DATA_VERSION,
      store: store.kind,
      created_at: new Date().toISOString(),
      secret_check: secretCheck(config.secret),
    };
    const { items, kinds } = await writeBackup(file, header, store.backup.items());
    return { file, store: store.kind, data_version: header.data_version, items, kinds };
  },
};

const NAMES: Record<string, [string, string]> = {
  users: ["user", "users"],
  apps: ["app", "apps"],
  signingKeys: ["signing key", "signing keys"],
  challenges: ["challenge", "challenges"],
};
/** "1 user, 2 signing keys" */
const describe = (h: Record<string, number>) =>
  Object.entries(h)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${NAMES[k]?.[n === 1 ? 0 : 1] ?? k}`)
    .join(", ");

const LOCK_MS = 30_000;

const newer = (header: BackupHeader) =>
  new UsageError(
    `the backup is of a newer Sigil (file format ${header.format_version}, data version ${header.data_version}; this Sigil knows format ${BACKUP_FORMAT_VERSION}, data version ${CURRENT_DATA_VERSION}): upgrade Sigil first`,
  );

export const restore: CliCommand = {
  name: "restore",
  description: "Loads a backup into an empty store (--force: replaces what it holds), with no node serving it.",
  usage: "--in FILE [--force]",
  options: { in: { type: "string" }, force: { type: "boolean" } },
  // On the embedded store it holds DATA_DIR's lock, as a server does: none runs meanwhile.
  exclusive: true,
  async run({ opened, config, values }) {
    const file = required(values, "in");
    const store = opened.store;
    const reader = new BackupReader(file);
    // A newer format is refused before its items are read (they may be of kinds this code does not know).
    const first = await reader.header();
    if (first.format_version > BACKUP_FORMAT_VERSION || first.data_version > CURRENT_DATA_VERSION) throw newer(first);
    // The whole file is read and checked before anything is written.
    const { header } = await reader.verify();
    if (!sameSecret(header, config.secret))
      throw new UsageError(
        "the backup was taken under another SECRET: restore it with the SECRET of the service it was taken from (apps' secrets, two-factor and signing keys are sealed under it)",
      );
    const serving = await store.backup.servingNodes();
    if (serving > 0)
      throw new UsageError(
        `${serving} Sigil node${serving === 1 ? " is" : "s are"} serving this store: stop ${serving === 1 ? "it" : "them"} before a restore`,
      );
    // One restore at a time (and none during a migration): the migration lock, renewed while it runs.
    const lock = randomUUID();
    if (!(await store.meta.takeMigrationLock(lock, LOCK_MS)))
      throw new UsageError(
        "another restore or a data migration is running on this store: try again once it has finished",
      );
    const renew = setInterval(() => void store.meta.renewMigrationLock(lock, LOCK_MS).catch(() => {}), LOCK_MS / 3);
    let counts;
    try {
      const holdings = await store.backup.holdings();
      if (!holdsNothing(holdings)) {
        if (values.force !== true)
          throw new UsageError(
            `the store is not empty (${describe({ ...holdings })}): restore --force replaces everything in it`,
          );
        await store.backup.clear();
      }
      counts = await restoreItems(store, reader.items(), config.auditRetention, config.historyTtl);
    } finally {
      clearInterval(renew);
      await store.meta.releaseMigrationLock(lock);
    }
    return {
      file,
      from: header.store,
      store: store.kind,
      data_version: header.data_version,
      restored: counts.restored,
      dropped: counts.dropped,
    };
  },
};
