// The domain services a node runs, built once from the configuration and the store. The HTTP
// routes, the realtime channel and the CLI's commands all call these (docs/architecture.md).
import type { Config } from "../config.js";
import type { Store } from "../store/port.js";
import { Passwords } from "./passwords.js";
import { Accounts } from "./accounts.js";
import { AccountLife } from "./account-life.js";
import { appExistsIn, Apps } from "./apps.js";
import { ClientAuth } from "./client-auth.js";
import { ChannelEvents } from "./channel-events.js";
import { ChannelMessages } from "./channel-messages.js";
import { Challenges } from "./challenges.js";
import { CustomTokens } from "./custom-tokens.js";
import { OAuth } from "./oauth.js";
import type { KeyPairMaker } from "./keys.js";
import { openIdFor, type OpenId } from "./oidc-setup.js";
import { EmailService } from "./email.js";
import { smtpMailer } from "./mailer.js";
import { SecurityMails } from "./security-mails.js";
import type { Logger } from "../log.js";
import { causeForLog } from "../errors.js";
import { Passkeys } from "./passkeys.js";
import { Upstreams } from "./upstreams.js";
import { UpstreamAccounts } from "./upstream-accounts.js";
import { UpstreamProviders } from "./upstream-providers.js";
import { TwoFactor } from "./two-factor.js";
import { StepUp } from "./step-up.js";
import { Readiness } from "./readiness.js";
import { PageSessions } from "./page-sessions.js";
import { AuditLog } from "./audit.js";
import { Groups } from "./groups.js";
import { Invitations } from "./invitations.js";
import { EventEndpoints } from "./event-endpoints.js";
import { IdentityEvents } from "./identity-events.js";
import { Presence } from "./presence.js";

export interface Services {
  accounts: Accounts;
  /** Export, deletion and password reset of an account (domain/account-life.ts). */
  accountLife: AccountLife;
  apps: Apps;
  /** Client authentication at /token, /revoke and /introspect, its failures counted once for all three. */
  clientAuth: ClientAuth;
  /** CUSTOM TOKENs: create, list, revoke (for /developers, the channel and the CLI). */
  customTokens: CustomTokens;
  oauth: OAuth;
  events: ChannelEvents;
  /** The apps' own channels: publishing, and their histories (domain/channel-messages.ts). */
  channels: ChannelMessages;
  challenges: Challenges;
  /** OpenID Connect: the signing keys and the ID token signer. */
  openid: OpenId;
  /** Email addresses, confirmation links, password recovery by mail (SMTP_URL). */
  email: EmailService;
  /** Passkeys (WebAuthn): registration, sign-in, the list on /account. */
  passkeys: Passkeys;
  /** Two-factor with an authenticator app (TOTP) and recovery codes. */
  twoFactor: TwoFactor;
  /** Upstream providers: their flows (upstreams.ts) and the accounts they sign in to (upstream-accounts.ts). */
  upstreams: Upstreams;
  upstreamAccounts: UpstreamAccounts;
  /** The upstream providers added on /admin (upstream-providers.ts). */
  upstreamProviders: UpstreamProviders;
  /** The mails about changes to how an account is signed in to or recovered. */
  securityMails: SecurityMails;
  /** "Confirm it's you": the fresh proof the sensitive account actions need (REAUTH_MAX_AGE). */
  stepUp: StepUp;
  /** The pages' sessions as saved (express-session's store). */
  pageSessions: PageSessions;
  /** GET /readyz: whether the store answers. */
  readiness: Readiness;
  /** The audit log: records queued by the use cases, written in batches off the requests' path. */
  audit: AuditLog;
  /** Groups of users, and the `groups` claim (domain/groups.ts). */
  groups: Groups;
  /** Sign-up invitations (SIGNUP=invite, domain/invitations.ts). */
  invitations: Invitations;
  /** An app's webhook URL (and its secret) and back-channel logout URI (domain/event-endpoints.ts). */
  eventEndpoints: EventEndpoints;
  /** Identity events to the user's apps: sockets, webhooks, back-channel logout (domain/identity-events.ts). */
  identityEvents: IdentityEvents;
  /** Who is subscribed to the apps' channels, on every node (domain/presence.ts). */
  presence: Presence;
}

/** What a caller may give beyond the settings (tests: key pairs made ahead of time). */
export interface ServicesOptions {
  makeKeyPair?: KeyPairMaker;
}

export function createServices(config: Config, store: Store, log?: Logger, opts: ServicesOptions = {}): Services {
  const customTokens = new CustomTokens({ store, secret: config.secret, appExists: appExistsIn(store) });
  const passwords = new Passwords(config.passwordHashCost);
  const audit = new AuditLog({
    store,
    keepSeconds: config.auditRetention,
    // What failed and why; never the records.
    onError: (what, err) => log?.warn(err ? { cause: causeForLog(err) } : {}, what),
  });
  const identityEvents = new IdentityEvents({
    store,
    secret: config.secret,
    // What failed and why; never the event.
    onError: (what, err) => log?.warn(err ? { cause: causeForLog(err) } : {}, what),
  });
  const accounts = new Accounts(store, passwords, audit, identityEvents);
  // Deleting an app revokes its CUSTOM TOKENs first (a token check does not look the app up).
  const apps = new Apps({
    store,
    secret: config.secret,
    gracePeriod: config.secretGracePeriod,
    onDelete: (clientId) => customTokens.revokeAll(clientId),
  });
  const mailer = config.smtpUrl ? smtpMailer(config.smtpUrl, config.mailFrom) : undefined;
  // Never the mail, its link or its token: what failed, and why.
  const onMailError = (what: string, err: unknown) => log?.error({ cause: causeForLog(err) }, `${what}: not sent`);
  const securityMails = new SecurityMails({
    store,
    audit,
    mailer,
    authUrl: config.authUrl,
    serviceName: config.serviceName,
    onError: onMailError,
  });
  const oauth = new OAuth({
    store,
    secret: config.secret,
    codeTtl: config.codeTtl,
    deviceCodeTtl: config.deviceCodeTtl,
    accessTokenTtl: config.accessTokenTtl,
    refreshTokenTtl: config.refreshTokenTtl,
    identity: identityEvents,
  });
  const passkeys = new Passkeys({
    store,
    authUrl: config.authUrl,
    serviceName: config.serviceName,
    limits: accounts.limits,
    secret: config.secret,
    securityMails,
  });
  const twoFactor = new TwoFactor({
    store,
    secret: config.secret,
    issuer: config.serviceName,
    securityMails,
    // The user (never the sealed key): who needs `sigil users reset-2fa`.
    onUnreadable: (userId) =>
      void store.accounts
        .byId(userId)
        .catch(() => null)
        .then((user) =>
          log?.error(
            { user_id: userId, username: user?.username },
            "two-factor key cannot be opened with this SECRET (SECRET changed since it was set up): the user cannot sign in with a password until `sigil users reset-2fa` turns it off",
          ),
        ),
  });
  const clientAuth = new ClientAuth({ store, apps });
  const upstreamProviders = new UpstreamProviders({
    store,
    fromSettings: config.upstreams,
    secret: config.secret,
    onUnreadable: (id) =>
      log?.warn(
        { upstream: id },
        `upstream provider "${id}" is not offered: SECRET cannot open its client secret (changed since it was stored); give its secret again on /admin/upstreams`,
      ),
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
      securityMails,
      audit,
      identity: identityEvents,
    }),
    apps,
    clientAuth,
    customTokens,
    oauth,
    events: new ChannelEvents(store, config),
    channels: new ChannelMessages({ store, clientAuth, customTokens, config }),
    challenges: new Challenges({ store, secret: config.secret, limits: config.solveLimits, history: config }),
    openid: openIdFor(config, store, log, opts.makeKeyPair),
    email: new EmailService({
      store,
      secret: config.secret,
      mailer,
      baseUrl: config.baseUrl,
      authUrl: config.authUrl,
      serviceName: config.serviceName,
      confirmTtl: config.emailConfirmTtl,
      resetTtl: config.passwordResetTtl,
      hashPassword: (password) => passwords.hash(password),
      revokeUserGrants: (userId) => oauth.grants.revokeUserGrants(userId),
      endSessions: async (userId) => {
        await accounts.endSessions(userId);
      },
      onError: onMailError,
      securityMails,
      emailDomains: config.signupEmailDomains,
    }),
    passkeys,
    twoFactor,
    upstreams: new Upstreams(config, store, upstreamProviders),
    upstreamAccounts: new UpstreamAccounts(config, store, (address) => accounts.countSignUp(address)),
    upstreamProviders,
    securityMails,
    stepUp: new StepUp({ accounts, twoFactor, passkeys, maxAgeSeconds: config.reauthMaxAge }),
    pageSessions: new PageSessions(store, identityEvents),
    readiness: new Readiness(store),
    audit,
    groups: new Groups(store),
    invitations: new Invitations({
      store,
      secret: config.secret,
      authUrl: config.authUrl,
      emailDomains: config.signupEmailDomains,
    }),
    eventEndpoints: new EventEndpoints(store, config.secret),
    identityEvents,
    presence: new Presence({
      store,
      heartbeatMs: config.presenceHeartbeat,
      onError: (what, err) => log?.warn({ cause: causeForLog(err) }, what),
    }),
  };
}
