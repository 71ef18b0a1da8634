// The developers console (docs/http-api.md#developers): register apps, see client ids, rotate secrets, delete,
// and each app's CUSTOM TOKENs.
import type { AppRecord, CustomTokenRecord, UserRecord } from "../store/port.js";
import { CustomTokensSection, type ShownToken } from "./custom-tokens.js";
import { Csrf, ErrorNote, Page } from "./layout.js";

export interface ShownSecret {
  clientId: string;
  /** undefined for a public client (it has none). */
  clientSecret: string | undefined;
  what: string;
}

export function DevelopersPage(p: {
  user: UserRecord;
  apps: AppRecord[];
  /** Each app's CUSTOM TOKENs by client_id (records, without values). */
  tokens: Map<string, CustomTokenRecord[]>;
  csrf: string;
  /** The time the page speaks of (ms), for "expired". */
  now: number;
  shown?: ShownSecret | undefined;
  shownToken?: ShownToken | undefined;
  error?: string | undefined;
}) {
  return (
    <Page title="Developers" user={p.user} csrf={p.csrf}>
      <ErrorNote message={p.error} />
      {p.shown ? (
        <div role="status">
          {p.shown.clientSecret === undefined ? (
            <p>{p.shown.what} A public client has no secret: it signs in with its client_id and PKCE.</p>
          ) : (
            <p>{p.shown.what} Copy the secret now: it is not shown again.</p>
          )}
          <p>
            client_id: <code class="client-id">{p.shown.clientId}</code>
          </p>
          {p.shown.clientSecret === undefined ? null : (
            <p>
              client_secret: <code class="secret client-secret">{p.shown.clientSecret}</code>
            </p>
          )}
        </div>
      ) : null}
      <section>
        <h2>Register an app</h2>
        <form method="post" action="/developers">
          <Csrf token={p.csrf} />
          <label>
            Name <input type="text" name="name" required maxLength={64} />
          </label>
          <label>
            Redirect URLs (one per line; https, or http on 127.0.0.1 / [::1])
            <textarea name="redirect_uri" rows={3} required />
          </label>
          <label>
            Post-logout redirect URLs (optional, one per line; where OpenID Connect sign-out may return)
            <textarea name="post_logout_redirect_uri" rows={2} />
          </label>
          <fieldset>
            <legend>Kind of app</legend>
            <label>
              <input type="radio" name="client_type" value="confidential" checked /> Server app (confidential: has a
              secret)
            </label>
            <label>
              <input type="radio" name="client_type" value="public" /> Browser or mobile app (public: no secret, PKCE
              required)
            </label>
          </fieldset>
          <button type="submit">Register</button>
        </form>
      </section>
      {p.apps.map((app) => (
        <section key={app.clientId} class="app" id={`app-${app.clientId}`}>
          <h2>{app.name}</h2>
          <p>
            client_id: <code>{app.clientId}</code>
          </p>
          <p>Redirect URLs:</p>
          <ul>
            {app.redirectUris.map((u) => (
              <li key={u}>
                <code>{u}</code>
              </li>
            ))}
          </ul>
          {app.postLogoutRedirectUris?.length ? (
            <>
              <p>Post-logout redirect URLs:</p>
              <ul>
                {app.postLogoutRedirectUris.map((u) => (
                  <li key={u}>
                    <code>{u}</code>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
          {app.previousSecretUntil && app.previousSecretUntil > Date.now() ? (
            <p>The previous secret works until {new Date(app.previousSecretUntil).toISOString()}.</p>
          ) : null}
          {app.public ? (
            <p class="client-type">Public client: no secret; PKCE required.</p>
          ) : (
            <form method="post" action={`/developers/${encodeURIComponent(app.clientId)}/rotate`}>
              <Csrf token={p.csrf} />
              <label>
                <input type="checkbox" name="revoke_old" value="1" /> revoke the old secret at once
              </label>
              <button type="submit">Rotate secret</button>
            </form>
          )}
          <form method="post" action={`/developers/${encodeURIComponent(app.clientId)}/delete`}>
            <Csrf token={p.csrf} />
            <button type="submit">Delete app</button>
          </form>
          <CustomTokensSection
            clientId={app.clientId}
            tokens={p.tokens.get(app.clientId) ?? []}
            csrf={p.csrf}
            now={p.now}
            shown={p.shownToken?.app === app.clientId ? p.shownToken : undefined}
          />
        </section>
      ))}
    </Page>
  );
}
