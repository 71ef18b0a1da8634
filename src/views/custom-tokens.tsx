// The CUSTOM TOKENs part of an app's section on /developers (docs/http-api.md#developers, docs/realtime.md#custom-tokens): create (the value
// shown once), list (records only: a stored token has no value to show) and revoke.
import type { CustomTokenRecord } from "../store/port.js";
import { Csrf } from "./layout.js";

/** A token just created: its value, for the one response that shows it. */
export interface ShownToken {
  app: string;
  id: string;
  name: string;
  token: string;
}

/** The lifetimes the form offers, in seconds ("" = never expires). */
export const EXPIRY_CHOICES: Array<[string, string]> = [
  ["", "never"],
  ["3600", "1 hour"],
  ["86400", "1 day"],
  ["604800", "7 days"],
  ["2592000", "30 days"],
  ["7776000", "90 days"],
  ["31536000", "1 year"],
];

const iso = (ms: number) => new Date(ms).toISOString();

function status(t: CustomTokenRecord, now: number): string {
  if (t.revoked) return "revoked";
  return t.expiresAt !== undefined && t.expiresAt <= now ? "expired" : "active";
}

export function CustomTokensSection(p: {
  clientId: string;
  tokens: CustomTokenRecord[];
  csrf: string;
  now: number;
  shown?: ShownToken | undefined;
}) {
  const base = `/developers/${encodeURIComponent(p.clientId)}/tokens`;
  return (
    <div class="custom-tokens">
      <h3>CUSTOM TOKENs (realtime channel)</h3>
      {p.shown ? (
        <div role="status">
          <p>Created the token “{p.shown.name}”. Copy it now: it is not shown again.</p>
          <p>
            <code class="secret custom-token">{p.shown.token}</code>
          </p>
        </div>
      ) : null}
      <form method="post" action={base}>
        <Csrf token={p.csrf} />
        <label>
          Token name (optional) <input type="text" name="name" maxLength={64} />
        </label>
        <label>
          Expires after{" "}
          <select name="expires_in">
            {EXPIRY_CHOICES.map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Create token</button>
      </form>
      {p.tokens.length === 0 ? (
        <p>No tokens yet.</p>
      ) : (
        <table class="custom-token-list">
          <thead>
            <tr>
              <th>name</th>
              <th>id</th>
              <th>created</th>
              <th>expires</th>
              <th>status</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {p.tokens.map((t) => (
              <tr key={t.id} data-token-id={t.id} data-status={status(t, p.now)}>
                <td class="token-name">{t.name}</td>
                <td>
                  <code>{t.id}</code>
                </td>
                <td>
                  <time dateTime={iso(t.createdAt)}>{iso(t.createdAt)}</time>
                </td>
                <td>
                  {t.expiresAt === undefined ? "never" : <time dateTime={iso(t.expiresAt)}>{iso(t.expiresAt)}</time>}
                </td>
                <td>{status(t, p.now)}</td>
                <td>
                  {t.revoked ? null : (
                    <form method="post" action={`${base}/${encodeURIComponent(t.id)}/revoke`}>
                      <Csrf token={p.csrf} />
                      <button type="submit">Revoke</button>
                    </form>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
