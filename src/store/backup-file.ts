// The backup file (docs/operations.md#backup-and-restore): gzip-compressed JSON lines. The first
// line says what the file is (format version, the store's data version, when and from which store,
// and a keyed check of SECRET); then one item a line (store/ports/backup.ts); the last line counts
// them and holds the SHA-256 of the item lines, so that a cut or damaged file is refused before
// anything is written. Secrets stay as the store keeps them: hashed, or sealed under SECRET.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { createInterface } from "node:readline";
import { finished } from "node:stream/promises";
import { createGunzip, createGzip } from "node:zlib";
import { BACKUP_KINDS, type BackupItem, type BackupKind } from "./port.js";

export const BACKUP_FORMAT = "sigil-backup" as const;
/**
 * The file format's version (the items' shapes are the data version's). 2: the channels'
 * histories ("channel-history" items), which a reader of version 1 would take for damage: it now
 * refuses the file as a newer Sigil's instead. 3: the upstream providers added on /admin
 * ("upstream" items), for the same reason. Files of versions 1 and 2 are read as they are.
 */
export const BACKUP_FORMAT_VERSION = 3;

export interface BackupHeader {
  format: typeof BACKUP_FORMAT;
  format_version: number;
  data_version: number;
  store: "embedded" | "redis";
  created_at: string;
  /** HMAC-SHA256 of a fixed text under SECRET (base64url): restore checks it has the same SECRET. */
  secret_check: string;
}

interface Trailer {
  end: true;
  items: number;
  sha256: string;
}

export class BackupFileError extends Error {}

export function secretCheck(secret: string): string {
  return createHmac("sha256", secret).update("sigil backup: the SECRET this was taken under").digest("base64url");
}

export function sameSecret(header: BackupHeader, secret: string): boolean {
  const a = Buffer.from(header.secret_check);
  const b = Buffer.from(secretCheck(secret));
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Writes header, items and trailer to file (mode 0600) through a file beside it, renamed at the end. */
export async function writeBackup(
  file: string,
  header: BackupHeader,
  items: AsyncIterable<BackupItem>,
): Promise<{ items: number; kinds: Partial<Record<BackupKind, number>> }> {
  const partial = `${file}.partial`;
  const out = createWriteStream(partial, { mode: 0o600, flags: "w" });
  const gzip = createGzip();
  gzip.pipe(out);
  const hash = createHash("sha256");
  const kinds: Partial<Record<BackupKind, number>> = {};
  let n = 0;
  const put = async (line: string) => {
    if (!gzip.write(`${line}\n`)) await new Promise((r) => gzip.once("drain", r));
  };
  try {
    await put(JSON.stringify(header));
    for await (const item of items) {
      const line = JSON.stringify(item);
      hash.update(`${line}\n`);
      kinds[item.kind] = (kinds[item.kind] ?? 0) + 1;
      n++;
      await put(line);
    }
    const trailer: Trailer = { end: true, items: n, sha256: hash.digest("hex") };
    await put(JSON.stringify(trailer));
    gzip.end();
    await finished(out);
    await rename(partial, file);
  } catch (err) {
    gzip.destroy();
    out.destroy();
    await rm(partial, { force: true });
    throw err;
  }
  return { items: n, kinds };
}

/** The fields each kind of item must have (a light check: the trailer's hash already vouches for the content). */
const REQUIRED: Record<BackupKind, string[]> = {
  user: ["user"],
  picture: ["userId", "data"],
  email: ["email", "userId"],
  app: ["app"],
  "signing-key": ["key"],
  "custom-token": ["token"],
  consent: ["userId", "clientId", "scopes"],
  passkey: ["passkey"],
  upstream: ["upstream"],
  "upstream-link": ["link"],
  "two-factor": ["userId", "record", "recovery"],
  group: ["group", "members"],
  invitation: ["invitation"],
  audit: ["record"],
  challenge: ["key", "record", "expiresAt"],
  grant: ["grantId", "clientId", "userId", "scope", "markExpiresAt"],
  "access-token": ["hash", "token", "expiresAt"],
  history: ["app", "events", "last", "cut"],
  "channel-history": ["app", "channel", "messages", "last", "cut"],
};

function parseLine(line: string, where: number): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    throw new BackupFileError(`the backup file is damaged: line ${where} is not JSON`);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function checkItem(v: unknown, where: number): BackupItem {
  const kind = isObject(v) ? v.kind : undefined;
  if (!isObject(v) || typeof kind !== "string" || !(BACKUP_KINDS as readonly string[]).includes(kind))
    throw new BackupFileError(`the backup file is damaged: line ${where} is not an item`);
  for (const field of REQUIRED[kind as BackupKind])
    if (!(field in v)) throw new BackupFileError(`the backup file is damaged: line ${where} has no ${field}`);
  return v as BackupItem;
}

function checkHeader(v: unknown): BackupHeader {
  if (!isObject(v) || v.format !== BACKUP_FORMAT)
    throw new BackupFileError("not a Sigil backup (its first line does not say sigil-backup)");
  for (const f of ["format_version", "data_version"])
    if (!Number.isInteger(v[f])) throw new BackupFileError(`the backup file is damaged: its header has no ${f}`);
  if (typeof v.secret_check !== "string" || (v.store !== "redis" && v.store !== "embedded"))
    throw new BackupFileError("the backup file is damaged: its header is incomplete");
  return v as unknown as BackupHeader;
}

/**
 * Reads a backup: its header at once (read()), then, from items(), each item in order. items()
 * throws BackupFileError when the file turns out damaged or cut: verify() reads it all first.
 */
export class BackupReader {
  constructor(private readonly file: string) {}

  private async *lines(): AsyncGenerator<string> {
    const input = createReadStream(this.file);
    const gunzip = createGunzip();
    const text = input.pipe(gunzip);
    const failed = new Promise<never>((_, reject) => {
      const fail = (err: NodeJS.ErrnoException) =>
        reject(
          err.code === "ENOENT" || err.code === "EACCES" || err.code === "EISDIR"
            ? new BackupFileError(`cannot read ${this.file}: ${err.code}`)
            : new BackupFileError(`the backup file is damaged: ${err.message}`),
        );
      input.once("error", fail);
      gunzip.once("error", fail);
    });
    failed.catch(() => {}); // raced below
    const rl = createInterface({ input: text, crlfDelay: Infinity })[Symbol.asyncIterator]();
    try {
      for (;;) {
        const next = await Promise.race([rl.next(), failed]);
        if (next.done) break;
        yield next.value;
      }
    } finally {
      input.destroy();
      gunzip.destroy();
    }
  }

  async header(): Promise<BackupHeader> {
    for await (const line of this.lines()) return checkHeader(parseLine(line, 1));
    throw new BackupFileError("the backup file is empty");
  }

  /** Reads the whole file: its header, every item's shape, the count and the hash. */
  async verify(): Promise<{ header: BackupHeader; items: number }> {
    let n = 0;
    let header: BackupHeader | undefined;
    for await (const item of this.read()) {
      if ("format" in item) header = item;
      else n++;
    }
    return { header: header!, items: n }; // read() yields the header first or throws
  }

  /** The items, after the header; throws on a damaged file only once the damage is reached. */
  async *items(): AsyncGenerator<BackupItem> {
    for await (const x of this.read()) if (!("format" in x)) yield x;
  }

  private async *read(): AsyncGenerator<BackupHeader | BackupItem> {
    const hash = createHash("sha256");
    let where = 0;
    let trailer: Trailer | undefined;
    let n = 0;
    for await (const line of this.lines()) {
      where++;
      if (trailer) throw new BackupFileError(`the backup file is damaged: line ${where} follows its end`);
      const v = parseLine(line, where);
      if (where === 1) {
        yield checkHeader(v);
        continue;
      }
      if (isObject(v) && v.end === true) {
        trailer = v as unknown as Trailer;
        continue;
      }
      hash.update(`${line}\n`);
      n++;
      yield checkItem(v, where);
    }
    if (where === 0) throw new BackupFileError("the backup file is empty");
    if (!trailer) throw new BackupFileError("the backup file is cut short (it has no end line)");
    if (trailer.items !== n || trailer.sha256 !== hash.digest("hex"))
      throw new BackupFileError("the backup file is damaged: its items do not match its end line's count and hash");
  }
}
