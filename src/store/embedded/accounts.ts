// The embedded store's accounts: users, the username index (ordered: it pages users by name), the
// index of search words (store/user-search.ts: keys [first character, word, username, id], written
// in the same step as the record, so it is always exact) and pictures, in tables.
import type { AccountStore, UserChange, UserListOptions, UserRecord } from "../port.js";
import { USER_LIST_BATCH, changedUser, userMatches } from "../port.js";
import { SEARCH_ENTRY_CAP, SEARCH_WORD_MAX, indexWords, pageOfHits, type SearchHit } from "../user-search.js";
import type { Engine, KeyPart } from "./engine.js";

/** A word's first character (a whole code point): its group of keys in the search table. */
const firstChar = (word: string): string => String.fromCodePoint(word.codePointAt(0) ?? 0);
const searchKey = (word: string, user: UserRecord): KeyPart[] => [firstChar(word), word, user.username, user.id];

export class EmbeddedAccounts implements AccountStore {
  private readonly users;
  private readonly names;
  private readonly pictures;
  private readonly search;

  constructor(private readonly engine: Engine) {
    this.users = engine.table<UserRecord>("users");
    this.names = engine.table<string>("usernames");
    this.pictures = engine.table<Uint8Array>("pictures");
    this.search = engine.table<1>("user-search");
  }

  /** Inside write(): the user's search words, from `before`'s (none: a new user) to `after`'s (none: deleted). */
  private indexSearch(before: UserRecord | undefined, after: UserRecord | undefined): void {
    const old = before ? indexWords(before) : [];
    const next = after ? indexWords(after) : [];
    for (const w of old) if (!after || !next.includes(w)) this.search.remove(searchKey(w, before!));
    for (const w of next) this.search.put(searchKey(w, after!), 1);
  }

  create(user: UserRecord): Promise<boolean> {
    return this.engine.write(() => {
      if (this.names.has(user.username)) return false;
      this.names.put(user.username, user.id);
      this.users.put(user.id, user);
      this.indexSearch(undefined, user);
      return true;
    });
  }
  async byId(id: string) {
    return this.users.get(id) ?? null;
  }
  async byUsername(username: string) {
    const id = this.names.get(username);
    return id === undefined ? null : this.byId(id);
  }
  update(id: string, change: UserChange) {
    return this.engine.write(() => {
      const current = this.users.get(id);
      if (!current) return null;
      const next = changedUser(current, change);
      if (next) {
        this.users.put(id, next);
        this.indexSearch(current, next);
      }
      return next ?? current;
    });
  }
  delete(user: UserRecord) {
    return this.engine.write(() => {
      const stored = this.users.get(user.id);
      const had = this.users.remove(user.id);
      if (stored) this.indexSearch(stored, undefined);
      if (this.names.get(user.username) === user.id) this.names.remove(user.username);
      this.pictures.remove(user.id);
      return had;
    });
  }
  async savePicture(id: string, data: Buffer) {
    await this.engine.write(() => this.pictures.put(id, Buffer.from(data)));
  }
  async picture(id: string) {
    const p = this.pictures.get(id);
    return p === undefined ? null : Buffer.from(p);
  }
  async list({ query, after, limit }: UserListOptions) {
    if (query) {
      const hits = this.hits(query);
      if (hits)
        return pageOfHits(hits, query, after, limit, async (ids) => ids.map((id) => this.users.get(id) ?? null));
    }
    const out: UserRecord[] = [];
    let cursor = after;
    while (out.length < limit) {
      const want = query ? USER_LIST_BATCH : limit - out.length;
      const batch = this.names.range([], { ...(cursor === undefined ? {} : { after: [cursor] }), limit: want });
      for (const { value: id } of batch) {
        const user = this.users.get(id);
        if (user && userMatches(user, query)) out.push(user);
        if (out.length >= limit) break;
      }
      if (batch.length < want) break;
      cursor = String(batch.at(-1)!.key[0]);
    }
    return out;
  }
  /**
   * The entries whose word begins with query, read in one range of its first character's keys
   * (U+10FFFF after the query: above every character that may follow it); null when more than
   * SEARCH_ENTRY_CAP (a broad query).
   */
  private hits(query: string): SearchHit[] | null {
    const prefix = query.slice(0, SEARCH_WORD_MAX);
    const first = firstChar(prefix);
    const entries = this.search.range([first], {
      after: [first, prefix],
      before: [first, `${prefix}\u{10FFFF}`],
      limit: SEARCH_ENTRY_CAP + 1,
    });
    if (entries.length > SEARCH_ENTRY_CAP) return null;
    const out: SearchHit[] = [];
    for (const { key } of entries)
      if (String(key[1]).startsWith(prefix)) out.push({ username: String(key[2]), id: String(key[3]) });
    return out;
  }
  reindex(user: UserRecord): Promise<void> {
    // The username table is written with every user; the search words since data version 4.
    return this.engine.write(() => {
      const stored = this.users.get(user.id);
      if (stored) this.indexSearch(undefined, stored);
    });
  }
}
