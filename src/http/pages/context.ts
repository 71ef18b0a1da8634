// What the page handlers share: the domain objects, the settings, and small helpers.
import type { EventEndpoints } from "../../domain/event-endpoints.js";
import type { Invitations } from "../../domain/invitations.js";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { Config } from "../../config.js";
import type { Accounts } from "../../domain/accounts.js";
import type { AccountLife } from "../../domain/account-life.js";
import type { Apps } from "../../domain/apps.js";
import type { CustomTokens } from "../../domain/custom-tokens.js";
import type { OAuth } from "../../domain/oauth.js";
import type { OpenId } from "../../domain/oidc-setup.js";
import type { EmailService } from "../../domain/email.js";
import type { Passkeys } from "../../domain/passkeys.js";
import type { TwoFactor } from "../../domain/two-factor.js";
import type { Upstreams } from "../../domain/upstreams.js";
import type { UpstreamAccounts } from "../../domain/upstream-accounts.js";
import type { UpstreamProviders } from "../../domain/upstream-providers.js";
import type { StepUp } from "../../domain/step-up.js";
import type { PageSessions } from "../../domain/page-sessions.js";
import type { AuditLog } from "../../domain/audit.js";
import type { SecurityMails } from "../../domain/security-mails.js";
import type { Groups } from "../../domain/groups.js";
import { isDisabled, type UserRecord } from "../../store/port.js";

export interface PagesDeps {
  config: Config;
  /** The pages' sessions as saved (express-session's store, pages/session.ts). */
  pageSessions: PageSessions;
  accounts: Accounts;
  /** Export and deletion of an account, the sessions list (domain/account-life.ts). */
  accountLife: AccountLife;
  apps: Apps;
  oauth: OAuth;
  /** The CUSTOM TOKENs of apps, managed on /developers. */
  customTokens: CustomTokens;
  /** OpenID Connect: signing keys and ID tokens (id_token_hint). */
  openid: OpenId;
  /** Email addresses, confirmation and password recovery by mail. */
  email: EmailService;
  /** Passkeys (WebAuthn): /account's list and the ceremonies of /account and /signin. */
  passkeys: Passkeys;
  /** Two-factor: the second sign-in step and its setup on /account. */
  twoFactor: TwoFactor;
  /** Upstream providers: "Continue with …", and the identities linked on /account. */
  upstreams: Upstreams;
  upstreamAccounts: UpstreamAccounts;
  /** The upstream providers added on /admin/upstreams. */
  upstreamProviders: UpstreamProviders;
  /** "Confirm it's you": the fresh proof the sensitive account actions need (pages/step-up.ts). */
  stepUp: StepUp;
  /** The audit log: sign-ins, sign-outs, sign-ups and the rest (domain/audit.ts). */
  audit: AuditLog;
  /** Mails (and audit records) of changes to how an account is signed in to (upstream links). */
  securityMails: SecurityMails;
  /** Groups: an app restricted to groups refuses other users at /authorize. */
  groups: Groups;
  /** Sign-up invitations (SIGNUP=invite): /admin/invitations and the invited sign-up. */
  invitations: Invitations;
  /** An app's webhook URL and back-channel logout URL, set on /developers. */
  eventEndpoints: EventEndpoints;
}

/**
 * The signed-in user, or undefined (a session whose user is gone or disabled counts as signed out:
 * disabling ends the user's sessions, and this also covers a sign-in that raced with it).
 */
export async function currentUser(req: Request, deps: PagesDeps): Promise<UserRecord | undefined> {
  const id = req.session.userId;
  if (!id) return undefined;
  const user = await deps.accounts.byId(id);
  return user && !isDisabled(user) ? user : undefined;
}

/** Runs an async page handler and forwards errors to the page error handler. */
export const page =
  (fn: (req: Request, res: Response) => Promise<void>): RequestHandler =>
  (req: Request, res: Response, next: NextFunction) => {
    fn(req, res).catch(next);
  };

/** A field of a urlencoded/multipart body as one string ("" when absent; first when repeated). */
export function field(req: Request, name: string): string {
  const v: unknown = (req.body as Record<string, unknown> | undefined)?.[name];
  if (typeof v === "string") return v;
  if (Array.isArray(v) && typeof v[0] === "string") return v[0];
  return "";
}

/** A query parameter as one string, or undefined when absent or repeated. */
export function queryParam(req: Request, name: string): string | undefined {
  const v: unknown = (req.query as Record<string, unknown>)[name];
  return typeof v === "string" ? v : undefined;
}

/** Where a signed-out person goes to sign in and come back to this page. */
export function signInUrl(req: Request): string {
  return `/signin?${new URLSearchParams({ return_to: req.originalUrl })}`;
}
