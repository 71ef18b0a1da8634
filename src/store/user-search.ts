// The search of users (AccountStore.list with a query): what a user is found by, and how a store
// answers a query from its index of search words (both stores keep one: the embedded store a table
// keyed [word, username, id], Redis one sorted set of "<word>\0<username>\0<id>").
//
// Match semantics (docs/choices.md): a query finds a user when it is the beginning of one of the
// user's words, without regard to case or Unicode form (NFKC, lower-cased). A user's words are the
// username, the display name and the email address, each whole and cut at every character that is
// not a letter or digit, plus the email's local part and domain. So "smi" finds "Ann Smith",
// "ann.smith" and "x@smithy.example"; "mith" finds none of them (no substring search: it cannot be
// answered from an ordered index).

/** What a search looks at of a user (ports/signin.ts UserRecord; no import: that port re-exports this). */
interface Searchable {
  id: string;
  username: string;
  displayName: string;
  email?: string | undefined;
}

/** The longest word kept in an index (longer words are indexed by their beginning). */
export const SEARCH_WORD_MAX = 64;

/**
 * How many index entries a query reads before it is called broad: a broad query (one of every few
 * dozen users matches) walks the username index instead, where its matches are dense.
 */
export const SEARCH_ENTRY_CAP = 10_000;

/** A query or a field as the index holds it: NFKC, lower-cased, without control characters. */
export function normalizeSearch(s: string): string {
  return s
    .normalize("NFKC")
    .toLowerCase()
    .replace(/\p{Cc}/gu, "")
    .trim();
}

/** Every word a user is found by, whole (not cut at SEARCH_WORD_MAX). */
export function userWords(user: Omit<Searchable, "id">): Set<string> {
  const out = new Set<string>();
  const add = (s: string) => {
    const w = normalizeSearch(s);
    if (w) out.add(w);
  };
  const words = (s: string) => {
    add(s);
    for (const part of normalizeSearch(s).split(/[^\p{L}\p{N}]+/u)) add(part);
  };
  words(user.username);
  words(user.displayName ?? "");
  if (user.email) {
    words(user.email);
    const at = user.email.lastIndexOf("@");
    if (at > 0) {
      add(user.email.slice(0, at));
      add(user.email.slice(at + 1));
    }
  }
  return out;
}

/** The words as an index keeps them (cut at SEARCH_WORD_MAX), sorted. */
export function indexWords(user: Omit<Searchable, "id">): string[] {
  return [...new Set([...userWords(user)].map((w) => w.slice(0, SEARCH_WORD_MAX)))].sort();
}

/** Whether a normalized query begins one of the user's words (the match the index answers). */
export function userMatches(user: Searchable, query: string | undefined): boolean {
  if (!query) return true;
  for (const w of userWords(user)) if (w.startsWith(query)) return true;
  return false;
}

/** Whether two records have the same index words (an update that changes none writes no index). */
export function sameWords(a: Searchable, b: Searchable): boolean {
  const x = indexWords(a);
  const y = indexWords(b);
  return x.length === y.length && x.every((w, i) => w === y[i]);
}

/** A match read from an index: who, by name. */
export interface SearchHit {
  username: string;
  id: string;
}

/**
 * The users (in username order, after `after`) that entries point at, at most `limit` of them
 * that still match: entries may be stale (a record changed or deleted since), so each record is
 * read and checked again. `read` reads records by id, in one round trip where it can.
 */
export async function pageOfHits<U extends Searchable>(
  hits: SearchHit[],
  query: string,
  after: string | undefined,
  limit: number,
  read: (ids: string[]) => Promise<(U | null)[]>,
): Promise<U[]> {
  const byId = new Map<string, SearchHit>();
  for (const h of hits) if (after === undefined || h.username > after) byId.set(h.id, h);
  const ordered = [...byId.values()].sort((a, b) =>
    a.username < b.username ? -1 : a.username > b.username ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
  const out: U[] = [];
  for (let i = 0; i < ordered.length && out.length < limit;) {
    const batch = ordered.slice(i, i + Math.max(limit - out.length, 16));
    i += batch.length;
    const users = await read(batch.map((h) => h.id));
    for (const [j, user] of users.entries()) {
      // The record must still hold the name it was indexed under, and still match.
      if (user && user.username === batch[j]!.username && userMatches(user, query)) out.push(user);
      if (out.length >= limit) break;
    }
  }
  return out;
}
