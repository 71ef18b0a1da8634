// Restore: a backup's items written into a store through the ports a node writes with, so that each
// store keeps its own indexes as a sign-in would have written them (store/ports/backup.ts). A grant
// is replayed: its code saved and taken (the grant's mark, registered with the user's consent and
// the app), its refresh chain started and rotated up to the live token; then its access tokens.
// What no longer fits (a consent to an app that is not in the backup) is dropped and counted.
import type { BackupItem, BackupKind, GrantItem, Store } from "./port.js";

/** Seconds from now until `at` (ms), at least 1; undefined when `at` has passed. `at` 0: never. */
function secondsUntil(at: number, now: number, never: number): number | undefined {
  if (at === 0) return never;
  const s = Math.ceil((at - now) / 1000);
  return s > 0 ? s : undefined;
}

const YEAR_S = 365 * 24 * 3600;

async function restoreGrant(store: Store, g: GrantItem, now: number): Promise<boolean> {
  const markTtl = secondsUntil(g.markExpiresAt, now, YEAR_S);
  if (markTtl === undefined) return false;
  const grantEnd = Math.max(g.markExpiresAt || now + YEAR_S * 1000, g.refresh?.record.grantExpiresAt ?? 0);
  const code = { clientId: g.clientId, userId: g.userId, redirectUri: "", redirectUriGiven: false, scope: g.scope };
  if (!(await store.grants.saveCode(g.grantId, code, 60, secondsUntil(grantEnd, now, YEAR_S) ?? 1))) return false;
  if ((await store.grants.takeCode(g.grantId, markTtl)).kind !== "first") return false;
  if (!g.refresh) return true;
  const { record, used, live } = g.refresh;
  const chain = [...used, live.hash];
  const at = (i: number) => (i === chain.length - 1 ? live.issuedAt : now);
  if (!(await store.grants.startRefresh(chain[0]!, record, at(0)))) return false; // chain has live
  for (let i = 1; i < chain.length; i++) {
    const r = await store.grants.rotateRefresh(chain[i - 1]!, record.clientId, chain[i]!, at(i)); // i < length
    if (r.kind !== "rotated") return false;
  }
  return true;
}

/** Writes one item; false when it no longer fits (dropped). */
export async function restoreItem(
  store: Store,
  item: BackupItem,
  now: number,
  historyTtlSeconds: number,
): Promise<boolean> {
  switch (item.kind) {
    case "user":
      return store.accounts.create(item.user);
    case "picture":
      await store.accounts.savePicture(item.userId, Buffer.from(item.data, "base64"));
      return true;
    case "email":
      await store.email.indexEmail(item.email, item.userId);
      return true;
    case "app":
      await store.apps.create(item.app);
      return true;
    case "signing-key":
      await store.signingKeys.add(item.key);
      return true;
    case "custom-token":
      if (!(await store.apps.get(item.token.app))) return false;
      await store.customTokens.create(item.token);
      if (item.token.revoked) await store.customTokens.revoke(item.token.app, item.token.id);
      return true;
    case "consent":
      if (!(await store.grants.grantConsent(item.userId, item.clientId))) return false;
      return item.scopes === null || store.consentScopes.set(item.userId, item.clientId, item.scopes);
    case "passkey":
      return store.passkeys.add(item.passkey);
    case "upstream":
      return store.upstreamProviders.add(item.upstream);
    case "upstream-link":
      return store.upstreamLinks.link(item.link);
    case "two-factor":
      return store.twoFactor.enable(item.userId, item.record, item.recovery);
    case "group": {
      if (!(await store.groups.create(item.group))) return false;
      // A member whose account is gone (deleted since the backup was read) is left out.
      for (const userId of item.members)
        if (await store.accounts.byId(userId)) await store.groups.addMember(item.group.name, userId);
      return true;
    }
    case "invitation":
      if (item.invitation.expiresAt <= now) return false;
      await store.invitations.save(item.invitation);
      return true;
    case "challenge": {
      const ttl = secondsUntil(item.expiresAt, now, YEAR_S);
      return ttl !== undefined && store.challenges.create(item.key, item.record, ttl);
    }
    case "grant":
      return restoreGrant(store, item, now);
    case "access-token": {
      const ttl = secondsUntil(item.expiresAt, now, YEAR_S);
      return ttl !== undefined && store.grants.saveToken(item.hash, item.token, ttl);
    }
    case "history":
      await store.backup.restoreHistory(item);
      return true;
    case "channel-history":
      // A channel of an app deleted while the backup was read has nothing to belong to.
      if (!(await store.apps.get(item.app))) return false;
      await store.backup.restoreChannelHistory(item, historyTtlSeconds);
      return true;
    case "audit":
      // Written a batch at a time, in order, by restoreItems (restoreAudit).
      throw new Error("audit records are restored by restoreAudit");
  }
}

/**
 * A batch of audit records, in their order, each kept AUDIT_RETENTION after its time (the restoring
 * command's setting); those already older are dropped. How many were written.
 */
async function restoreAudit(store: Store, items: BackupItem[], keepSeconds: number, now: number): Promise<number> {
  const entries = items.flatMap((i) => {
    if (i.kind !== "audit" || i.record.time + keepSeconds * 1000 <= now) return [];
    const { id: _id, ...entry } = i.record;
    return [entry];
  });
  await store.audit.append(entries, keepSeconds);
  return entries.length;
}

export interface RestoreCounts {
  restored: Partial<Record<BackupKind, number>>;
  /** Items that no longer fit (expired since the backup, or naming what is not there). */
  dropped: number;
}

/**
 * Writes the items (in BACKUP_KINDS order, as a backup lists them), many of one kind at a time.
 * auditKeepSeconds: AUDIT_RETENTION where the records go; historyTtlSeconds: HISTORY_TTL there.
 */
export async function restoreItems(
  store: Store,
  items: AsyncIterable<BackupItem>,
  auditKeepSeconds: number,
  historyTtlSeconds: number,
): Promise<RestoreCounts> {
  const counts: RestoreCounts = { restored: {}, dropped: 0 };
  // The restore horizon, before the first item (a restore cut short is honoured too) and again
  // after the last: a resume from an id issued before it is never complete (ports/backup.ts).
  await store.backup.markRestored();
  let batch: BackupItem[] = [];
  const flush = async () => {
    const now = Date.now();
    if (batch[0]?.kind === "audit") {
      const written = await restoreAudit(store, batch, auditKeepSeconds, now);
      counts.restored.audit = (counts.restored.audit ?? 0) + written;
      counts.dropped += batch.length - written;
      batch = [];
      return;
    }
    const done = await Promise.all(batch.map((i) => restoreItem(store, i, now, historyTtlSeconds)));
    done.forEach((ok, i) => {
      const kind = batch[i]!.kind; // same length
      if (ok) counts.restored[kind] = (counts.restored[kind] ?? 0) + 1;
      else counts.dropped++;
    });
    batch = [];
  };
  for await (const item of items) {
    // Items of one kind go together; the next kind waits for them (it may name them).
    if (batch.length > 0 && (batch.length >= 64 || batch[0]!.kind !== item.kind)) await flush();
    batch.push(item);
  }
  await flush();
  await store.backup.markRestored();
  return counts;
}
