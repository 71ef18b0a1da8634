// The domain services a node runs, built once from the configuration and the store. The HTTP
// routes, the realtime channel and the CLI's commands all call these (docs/architecture.md).
import type { Config } from "../config.js";
import type { Store } from "../store/port.js";
import { Passwords } from "./passwords.js";
import { Accounts } from "./accounts.js";
import { AccountLife } from "./account-life.js";
import { appExistsIn, Apps } from "./apps.js";
import { ChannelEvents } from "./channel-events.js";
import { Challenges } from "./challenges.js";
import { CustomTokens } from "./custom-tokens.js";
import { OAuth } from "./oauth.js";
import { openIdFor, type OpenId } from "./oidc-setup.js";
import { Passkeys } from "./passkeys.js";
import { TwoFactor } from "./two-factor.js";

export interface Services {
  accounts: Accounts;
  /** Export, deletion and password reset of an account (domain/account-life.ts). */
  accountLife: AccountLife;
  apps: Apps;
  /** CUSTOM TOKENs: create, list, revoke (for /developers, the channel and the CLI). */
  customTokens: CustomTokens;
  oauth: OAuth;
  events: ChannelEvents;
  challenges: Challenges;
  /** OpenID Connect: the signing keys and the ID token signer. */
  openid: OpenId;
  /** Passkeys (WebAuthn): registration, sign-in, the list on /account. */
  passkeys: Passkeys;
  /** Two-factor with an authenticator app (TOTP) and recovery codes. */
  twoFactor: TwoFactor;
}

export function createServices(config: Config, store: Store): Services {
  const customTokens = new CustomTokens({ store, secret: config.secret, appExists: appExistsIn(store) });
  const accounts = new Accounts(store, new Passwords(config.passwordHashCost));
  // Deleting an app revokes its CUSTOM TOKENs first (a token check does not look the app up).
  const apps = new Apps({
    store,
    secret: config.secret,
    gracePeriod: config.secretGracePeriod,
    onDelete: (clientId) => customTokens.revokeAll(clientId),
  });
  const oauth = new OAuth({
    store,
    secret: config.secret,
    codeTtl: config.codeTtl,
    accessTokenTtl: config.accessTokenTtl,
    refreshTokenTtl: config.refreshTokenTtl,
  });
  return {
    accounts,
    accountLife: new AccountLife({
      store,
      secret: config.secret,
      baseUrl: config.baseUrl,
      accounts,
      apps,
      oauth,
      customTokens,
    }),
    apps,
    customTokens,
    oauth,
    events: new ChannelEvents(store, config),
    challenges: new Challenges({ store, secret: config.secret, limits: config.solveLimits, history: config }),
    openid: openIdFor(config, store),
    passkeys: new Passkeys({ store, authUrl: config.authUrl, serviceName: config.serviceName }),
    twoFactor: new TwoFactor({ store, secret: config.secret, issuer: config.serviceName }),
  };
}
