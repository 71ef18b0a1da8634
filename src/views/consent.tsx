// The consent page of /authorize (docs/http-api.md#sign-in-with-sigil) and the error page that never redirects.
import type { UserRecord } from "../store/port.js";
import { Csrf, Page } from "./layout.js";

export function ConsentPage(p: { user: UserRecord; appName: string; csrf: string; hidden: Record<string, string> }) {
  return (
    <Page title="Allow access?" user={p.user} csrf={p.csrf}>
      <p>
        <strong class="app-name">{p.appName}</strong> wants to sign you in with Sigil and read:
      </p>
      <ul>
        <li>your display name</li>
        <li>your username</li>
        <li>your profile picture</li>
      </ul>
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
