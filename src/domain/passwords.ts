// Password hashing with node's scrypt (memory-hard, salted). Stored as
// "scrypt$N$r$p$salt$hash" so the cost can be raised later without breaking old hashes.
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from "node:crypto";

const scrypt = (pw: string, salt: Buffer, len: number, opts: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scryptCb(pw, salt, len, opts, (e, k) => (e ? reject(e) : resolve(k))));

/** log2 of scrypt's N by default (N = 16384, r = 8: 16 MiB and some 50 ms per hash on one core). */
export const DEFAULT_PASSWORD_COST = 14;
const R = 8;
const P = 1;
const LEN = 32;

/**
 * Hashes and checks passwords at one cost (PASSWORD_HASH_COST: log2 of scrypt's N). A stored hash
 * carries its own parameters, so changing the cost never breaks a sign-in: old hashes are checked
 * at the cost they were made with.
 */
export class Passwords {
  private readonly dummy: Promise<string>;

  constructor(readonly cost = DEFAULT_PASSWORD_COST) {
    if (!Number.isInteger(cost) || cost < 10 || cost > 20) throw new RangeError("password cost out of range");
    // Made at once, so the first unknown username costs no more than any other.
    this.dummy = this.hash(randomBytes(12).toString("hex"));
  }

  async hash(password: string): Promise<string> {
    const N = 2 ** this.cost;
    const salt = randomBytes(16);
    const key = await scrypt(password.normalize("NFC"), salt, LEN, {
      N,
      r: R,
      p: P,
      maxmem: 256 * N * R + 1024 * 1024,
    });
    return `scrypt$${N}$${R}$${P}$${salt.toString("base64url")}$${key.toString("base64url")}`;
  }

  async verify(password: string, stored: string): Promise<boolean> {
    return verifyPassword(password, stored);
  }

  /** A hash at this cost to verify against when the user does not exist, so timing does not reveal it. */
  dummyHash(): Promise<string> {
    return this.dummy;
  }
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split("$");
  if (kind !== "scrypt" || !salt || !hash) return false;
  const N = Number(n);
  const rr = Number(r);
  const pp = Number(p);
  // Parameters come from the store; refuse what this code never writes rather than allocate for it.
  if (!Number.isInteger(N) || N < 2 ** 10 || N > 2 ** 20 || rr !== R || pp !== P) return false;
  const expected = Buffer.from(hash, "base64url");
  const key = await scrypt(password.normalize("NFC"), Buffer.from(salt, "base64url"), expected.length, {
    N,
    r: rr,
    p: pp,
    maxmem: 256 * N * rr + 1024 * 1024,
  });
  return timingSafeEqual(key, expected);
}
