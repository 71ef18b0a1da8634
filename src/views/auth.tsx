// Sign-in and sign-up pages (docs/http-api.md#signup-and-signin).
import { Csrf, ErrorNote, Page } from "./layout.js";

const withReturn = (path: string, returnTo: string) => `${path}?${new URLSearchParams({ return_to: returnTo })}`;

export function SignInPage(p: {
  csrf: string;
  returnTo: string;
  error?: string | undefined;
  username?: string | undefined;
}) {
  return (
    <Page title="Sign in">
      <ErrorNote message={p.error} />
      <form method="post" action={withReturn("/signin", p.returnTo)}>
        <Csrf token={p.csrf} />
        <label>
          Username <input type="text" name="username" autocomplete="username" required value={p.username ?? ""} />
        </label>
        <label>
          Password <input type="password" name="password" autocomplete="current-password" required />
        </label>
        <button type="submit">Sign in</button>
      </form>
      <p>
        No account yet? <a href={withReturn("/signup", p.returnTo)}>Sign up</a>
      </p>
    </Page>
  );
}

export function SignUpPage(p: {
  csrf: string;
  returnTo: string;
  error?: string | undefined;
  username?: string | undefined;
  displayName?: string | undefined;
}) {
  return (
    <Page title="Sign up">
      <ErrorNote message={p.error} />
      <form method="post" action={withReturn("/signup", p.returnTo)}>
        <Csrf token={p.csrf} />
        <label>
          Username (3–32 of a-z 0-9 _ . -){" "}
          <input
            type="text"
            name="username"
            autocomplete="username"
            required
            minLength={3}
            maxLength={32}
            value={p.username ?? ""}
          />
        </label>
        <label>
          Display name <input type="text" name="display_name" maxLength={64} value={p.displayName ?? ""} />
        </label>
        <label>
          Password (8–128 characters){" "}
          <input type="password" name="password" autocomplete="new-password" required minLength={8} maxLength={128} />
        </label>
        <button type="submit">Create account</button>
      </form>
      <p>
        Have an account? <a href={withReturn("/signin", p.returnTo)}>Sign in</a>
      </p>
    </Page>
  );
}
