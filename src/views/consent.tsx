// The consent page of /authorize (docs/http-api.md#sign-in-with-sigil) and the error page that never redirects.
import type { UserRecord } from "../store/port.js";
import { Csrf, Page } from "./layout.js";

/** What each scope reads, in plain words (OpenID Connect; "profile" is what a plain OAuth app reads). */
const SCOPE_WORDS: Readonly<Record<string, readonly string[]>> = {
  openid: ["who you are on Sigil (an id that stays the same)"],
  profile: ["your display name", "your username", "your profile picture"],
  email: ["your email address, and whether it is confirmed"],
  offline_access: ["stay signed in while you are away"],
};

export function ConsentPage(p: {
  user: UserRecord;
  appName: string;
  csrf: string;
  hidden: Record<string, string>;
  /** The scopes asked for (["profile"] for a plain OAuth request). */
  scopes: string[];
}) {
  return (
    <Page title="Allow access?" user={p.user} csrf={p.csrf}>
      <p>
        <strong class="app-name">{p.appName}</strong> wants to sign you in with Sigil and read:
      </p>
      <ul class="scopes">{p.scopes.flatMap((s) => (SCOPE_WORDS[s] ?? []).map((w) => <li key={w}>{w}</li>))}</ul>
      <p>
        You are signed in as <strong>{p.user.displayName}</strong>.
      </p>
      <form method="post" action="/authorize">
        <Csrf token={p.csrf} />
        {Object.entries(p.hidden).map(([k, v]) => (
          <input key={k} type="hidden" name={k} value={v} />
        ))}
        <button type="submit" name="decision" value="allow">
          Allow
        </button>
        <button type="submit" name="decision" value="deny">
          Deny
        </button>
      </form>
    </Page>
  );
}

export function ErrorPage(p: { title: string; message: string }) {
  return (
    <Page title={p.title}>
      <p class="error">{p.message}</p>
    </Page>
  );
}
