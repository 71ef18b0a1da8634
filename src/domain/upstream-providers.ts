// The upstream providers an admin adds on /admin/upstreams (docs/upstream-providers.md#on-admin),
// beside those the settings name (UPSTREAM_<ID>_*, config/upstreams.ts): checked as the settings
// are (checkUpstream), stored with the client secret sealed under SECRET (bound to the id), never
// shown again. An id the settings use is refused; the settings' providers are read-only here.
// Removing one keeps its users' links: the same id added again signs them in again.
import type { Upstream, UpstreamPart } from "../config/upstreams.js";
import { checkUpstream, UpstreamSettingError } from "../config/upstreams.js";
import type { Store, StoredUpstreamRecord } from "../store/port.js";
import { seal, sealingKey, unseal } from "./seal.js";
import { Remembered } from "../remembered.js";

/** The form's fields (the settings' parts, in the form's names). */
export type UpstreamField = "id" | "kind" | "name" | "issuer" | "api_url" | "client_id" | "client_secret";

const FIELD_OF: Record<UpstreamPart, UpstreamField> = {
  KIND: "kind",
  ISSUER: "issuer",
  API_URL: "api_url",
  CLIENT_ID: "client_id",
  CLIENT_SECRET: "client_secret",
  NAME: "name",
};

/** What an admin typed (each field as sent; "" or absent: not given). */
export type UpstreamInput = Partial<Record<UpstreamField, string>>;

/**
 * A refused form: the field, and why ("bad": not a value it takes; "taken": the id is in use);
 * the message is the settings' English words (the CLI prints them; the pages say their own).
 */
export class UpstreamFormError extends Error {
  constructor(
    readonly field: UpstreamField,
    readonly reason: "bad" | "taken",
    message = reason === "taken" ? "is taken (by the settings or by another provider)" : "is not valid",
  ) {
    super(message);
  }
}

/** A provider's id on the form: letters and digits, up to 32; lower case from then on. */
export const UPSTREAM_ID = /^[A-Za-z0-9]{1,32}$/;

/** How many accounts link an identity through a provider, and how many have no other way in. */
export interface UpstreamUse {
  accounts: number;
  onlyWay: number;
}

export interface UpstreamProvidersDeps {
  store: Store;
  /** The providers the settings name (config.upstreams). */
  fromSettings: readonly Upstream[];
  secret: string;
  now?: () => number;
  /**
   * Told once per provider (and again after it changes) that its secret cannot be opened with this
   * SECRET, so it is not offered: the operator's log line (services.ts). Never given the secret.
   */
  onUnreadable?: (id: string) => void;
}

const trimmed = (v: string | undefined) => (v ?? "").trim();

export class UpstreamProviders {
  private readonly key: Buffer;
  /** By id: the sealed secret last told of as unreadable (told again only once it changes). */
  private readonly toldUnreadable = new Map<string, string>();
  /** By provider id and sealed secret: what it opened to (secretOf). */
  private readonly opened = new Remembered<string, { secret: string | null }>(1000);

  constructor(private readonly deps: UpstreamProvidersDeps) {
    this.key = sealingKey(deps.secret, "sigil upstream client secret v1");
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** The providers the settings name (read-only on /admin). */
  get fromSettings(): readonly Upstream[] {
    return this.deps.fromSettings;
  }

  /** Whether the settings name this id. */
  isSetting(id: string): boolean {
    return this.deps.fromSettings.some((u) => u.id === id);
  }

  /** The stored providers as the admin pages list them (their secrets sealed), by id. */
  listStored(): Promise<StoredUpstreamRecord[]> {
    return this.deps.store.upstreamProviders.list();
  }

  get(id: string): Promise<StoredUpstreamRecord | null> {
    return UPSTREAM_ID.test(id) ? this.deps.store.upstreamProviders.get(id.toLowerCase()) : Promise.resolve(null);
  }

  /**
   * The stored providers a sign-in can use: each with its secret unsealed, but those whose secret
   * this SECRET cannot open and those whose id the settings name (the settings win).
   */
  async usable(): Promise<Upstream[]> {
    const out: Upstream[] = [];
    for (const r of await this.deps.store.upstreamProviders.list()) {
      if (this.isSetting(r.id)) continue;
      const clientSecret = this.secretOf(r);
      if (clientSecret === null) {
        this.tellUnreadable(r);
        continue;
      }
      this.toldUnreadable.delete(r.id);
      out.push({
        id: r.id,
        kind: r.kind,
        name: r.name,
        issuer: r.issuer,
        ...(r.apiUrl ? { apiUrl: r.apiUrl } : {}),
        clientId: r.clientId,
        clientSecret,
      });
    }
    return out;
  }

  private tellUnreadable(r: StoredUpstreamRecord): void {
    if (this.toldUnreadable.get(r.id) === r.sealedSecret) return;
    this.toldUnreadable.set(r.id, r.sealedSecret);
    this.deps.onUnreadable?.(r.id);
  }

  /**
   * The client secret, or null when this SECRET cannot open it (SECRET changed since). Opened once
   * per sealed value: the providers are read on every sign-in page, which needs their names only.
   */
  secretOf(r: StoredUpstreamRecord): string | null {
    return this.opened.get(`${r.id}\0${r.sealedSecret}`, () => ({
      secret: unseal(this.key, r.sealedSecret, `upstream:${r.id}`),
    })).secret;
  }

  /** Checks the fields as the settings are checked; the upstream they make. */
  private check(id: string, input: UpstreamInput): Upstream {
    const parts: Partial<Record<UpstreamPart, string>> = {};
    for (const [part, field] of Object.entries(FIELD_OF) as Array<[UpstreamPart, UpstreamField]>) {
      const v = trimmed(input[field]);
      if (v !== "") parts[part] = v;
    }
    try {
      return checkUpstream(id, parts);
    } catch (err) {
      if (!(err instanceof UpstreamSettingError) || !err.part) throw err;
      throw new UpstreamFormError(FIELD_OF[err.part], "bad", err.message);
    }
  }

  private record(u: Upstream, createdAt: number): StoredUpstreamRecord {
    return {
      id: u.id,
      kind: u.kind,
      name: u.name,
      issuer: u.issuer,
      ...(u.apiUrl ? { apiUrl: u.apiUrl } : {}),
      clientId: u.clientId,
      sealedSecret: seal(this.key, u.clientSecret, `upstream:${u.id}`),
      createdAt,
      updatedAt: this.now(),
    };
  }

  /** Adds a provider (every field checked); "taken" when the settings or the store have its id already. */
  async add(input: UpstreamInput): Promise<StoredUpstreamRecord> {
    const typed = trimmed(input.id);
    if (!UPSTREAM_ID.test(typed)) throw new UpstreamFormError("id", "bad", "must be 1 to 32 letters and digits");
    const u = this.check(typed, input);
    if (this.isSetting(u.id)) throw new UpstreamFormError("id", "taken");
    const record = this.record(u, this.now());
    if (!(await this.deps.store.upstreamProviders.add(record))) throw new UpstreamFormError("id", "taken");
    return record;
  }

  /**
   * Changes a stored provider's name, client id, issuer (kind oidc) and, when one is given, its
   * client secret (none given: the one stored is kept). Null when there is no such provider.
   */
  async change(id: string, input: UpstreamInput): Promise<StoredUpstreamRecord | null> {
    const was = await this.get(id);
    if (!was) return null;
    const secret = trimmed(input.client_secret) || this.secretOf(was) || "";
    const u = this.check(was.id, {
      kind: was.kind,
      name: input.name,
      issuer: was.kind === "oidc" ? input.issuer : was.issuer,
      ...(was.apiUrl ? { api_url: was.apiUrl } : {}),
      client_id: input.client_id,
      client_secret: secret,
    });
    const record = this.record(u, was.createdAt);
    return (await this.deps.store.upstreamProviders.update(record)) ? record : null;
  }

  /** Removes a stored provider (its users' links stay); the removed record, or null. */
  remove(id: string): Promise<StoredUpstreamRecord | null> {
    return UPSTREAM_ID.test(id) ? this.deps.store.upstreamProviders.remove(id.toLowerCase()) : Promise.resolve(null);
  }

  /**
   * How many accounts have an identity linked through the provider, and of them how many have no
   * other way to sign in (no password, no passkey, no link through another provider still offered).
   */
  async use(id: string, offered: readonly string[]): Promise<UpstreamUse> {
    const store = this.deps.store;
    const users = await store.upstreamLinks.usersOf(id);
    let onlyWay = 0;
    for (const userId of users) {
      const user = await store.accounts.byId(userId);
      if (!user || user.passwordHash !== "") continue;
      if ((await store.passkeys.listForUser(userId)).length > 0) continue;
      const links = await store.upstreamLinks.listForUser(userId);
      if (!links.some((l) => l.upstream !== id && offered.includes(l.upstream))) onlyWay++;
    }
    return { accounts: users.length, onlyWay };
  }
}
