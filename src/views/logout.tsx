// RP-initiated logout (docs/http-api.md#logout): the question asked when the request does not
// prove which app sent it, and the page shown once signed out with nowhere to return to.
import { Csrf, Page } from "./layout.js";

export function LogoutConfirmPage(p: { csrf: string; appName?: string | undefined; hidden: Record<string, string> }) {
  return (
    <Page title="Sign out?">
      <p>
        {p.appName ? (
          <>
            <strong class="app-name">{p.appName}</strong> asks to sign you out of Sigil.
          </>
        ) : (
          "An app asks to sign you out of Sigil."
        )}
      </p>
      <form method="post" action="/logout">
        <Csrf token={p.csrf} />
        {Object.entries(p.hidden).map(([k, v]) => (
          <input key={k} type="hidden" name={k} value={v} />
        ))}
        <button type="submit" name="decision" value="signout">
          Sign out
        </button>
      </form>
      <p>
        <a href="/account">Stay signed in</a>
      </p>
    </Page>
  );
}

export function SignedOutPage() {
  return (
    <Page title="Signed out">
      <p>You are signed out of Sigil.</p>
      <p>
        <a href="/signin">Sign in again</a>
      </p>
    </Page>
  );
}
