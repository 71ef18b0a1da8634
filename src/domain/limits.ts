// Every rate limit Sigil applies, in one table: its name, how many, per how long, and the setting
// that sets it (when one does). docs/http-api.md#rate-limits lists the same rows, and
// test/limits.test.ts checks the two against each other and that no limiter is made from numbers
// of its own: a limit changes here, and the test says which line of the docs to change with it.
//
// The counters of a limiter made from a row of LIMITS live in the store under its name
// (store/limiter.ts). The challenge answer limits are counted by the challenge store with the answer, in one atomic
// step (domain/challenges.ts); the realtime channel's is a token bucket per socket (realtime/).
import type { Config } from "../config.js";
import type { LimiterSpec } from "../store/port.js";

/** A limit with fixed numbers: the spec a store limiter is made from (the name keys its counters). */
export type FixedLimit = Readonly<LimiterSpec>;

/** A limit a setting sets: the settings of its numbers (docs/settings.md), and how Config holds them. */
export interface SetLimit {
  readonly name: string;
  /** The setting of the number of attempts. */
  readonly setting: string;
  /** The setting of the window, when one sets it. */
  readonly windowSetting?: string;
  readonly of: (config: Config) => { points: number; windowSeconds: number };
}

/** The limits counted by `store.limiter` (what each counts, and per what). */
export const LIMITS = {
  /** Failed client authentications at /token, /revoke and /introspect, per client_id and address. */
  clientAuth: { name: "token-client-auth", points: 19, windowSeconds: 600 },
  /** Failed sign-ins (wrong passwords and refused passkey answers), per username and address. */
  signInPerUserAddress: { name: "signin-user-addr", points: 10, windowSeconds: 900 },
  /** Failed sign-ins, per address. */
  signInPerAddress: { name: "signin-addr", points: 100, windowSeconds: 900 },
  /** User codes typed on /device that name no pending request, per address (docs/http-api.md#device-authorization). */
  deviceCodePerAddress: { name: "device-code-addr", points: 10, windowSeconds: 900 },
  /** The same, from every address together: what bounds guessing from many addresses. */
  deviceCodeOverall: { name: "device-code-all", points: 1000, windowSeconds: 900 },
  /**
   * Device authorizations made (POST /device_authorization: each keeps a record for
   * DEVICE_CODE_TTL and 10 minutes more), per address, whatever the client: a CLI user starts one
   * or two; one address keeps at most 60 records at once with the default TTL.
   */
  deviceAuthorizationsPerAddress: { name: "device-authz-addr", points: 30, windowSeconds: 900 },
  /** Passkey ceremonies begun, per address (sign-in) or per user (confirming, deleting the account). */
  passkeyCeremonies: { name: "passkey-ceremonies", points: 300, windowSeconds: 300 },
  /**
   * Upstream sign-ins begun (POST /upstream/<id>: each keeps a flow record for 10 minutes), per
   * address: an office behind one address signing in at 12 a minute passes; one address holds at
   * most 120 flows at once, and its forged failed callbacks add at most 720 audit records an hour.
   */
  upstreamStarts: { name: "upstream-starts", points: 60, windowSeconds: 300 },
  /** Sign-up posts, and first sign-ins through an upstream that would make an account, per address. */
  signUpPerAddress: { name: "signup-addr", points: 30, windowSeconds: 3600 },
  /** Wrong two-factor codes, per user. */
  twoFactorPerUser: { name: "2fa-user", points: 10, windowSeconds: 900 },
  /** Wrong two-factor codes, per address. */
  twoFactorPerAddress: { name: "2fa-addr", points: 100, windowSeconds: 900 },
  /** /forgot requests, per client address. */
  forgotPerAddress: { name: "forgot-addr", points: 10, windowSeconds: 900 },
  /** Password reset mails, per account. */
  resetMailsPerUser: { name: "forgot-user", points: 3, windowSeconds: 3600 },
  /** Confirmation mails, per account. */
  confirmMailsPerUser: { name: "confirm-user", points: 5, windowSeconds: 3600 },
  /** Mails of any kind, per recipient address. */
  mailsPerRecipient: { name: "mail-to", points: 10, windowSeconds: 3600 },
} as const satisfies Record<string, FixedLimit>;

/** The spec of a store limiter whose numbers a setting sets (its name keys its counters, as a row of LIMITS). */
export function setLimitSpec(limit: SetLimit, config: Config): FixedLimit {
  return { name: limit.name, ...limit.of(config) };
}

/** The limits a setting sets. */
export const SET_LIMITS = {
  /** Wrong answers to one challenge, per client address. */
  solvePerAddress: {
    name: "solve-addr",
    setting: "SOLVE_LIMIT_PER_ADDRESS",
    windowSetting: "SOLVE_LIMIT_PER_ADDRESS_WINDOW",
    of: (c: Config) => ({ points: c.solveLimits.perAddress, windowSeconds: c.solveLimits.perAddressWindow }),
  },
  /** Wrong answers to one challenge, from every address. */
  solvePerKey: {
    name: "solve-key",
    setting: "SOLVE_LIMIT_PER_KEY",
    windowSetting: "SOLVE_LIMIT_PER_KEY_WINDOW",
    of: (c: Config) => ({ points: c.solveLimits.perKey, windowSeconds: c.solveLimits.perKeyWindow }),
  },
  /** POST /realtime/publish requests (a batch is one), per app, every node together (a store limiter). */
  publishPerApp: {
    name: "publish-app",
    setting: "PUBLISH_RATE_LIMIT",
    windowSetting: "PUBLISH_RATE_WINDOW",
    of: (c: Config) => ({ points: c.publishRateLimit, windowSeconds: c.publishRateWindow }),
  },
  /** Realtime client → server events, per socket (a token bucket whose burst is the same number). */
  channelEvents: {
    name: "channel-events",
    setting: "CHANNEL_RATE_LIMIT",
    of: (c: Config) => ({ points: c.channelRateLimit, windowSeconds: 1 }),
  },
} as const satisfies Record<string, SetLimit>;
