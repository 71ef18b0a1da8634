// The CUSTOM TOKENs part of an app's section on /developers (docs/http-api.md#developers, docs/realtime.md#custom-tokens): create (the value
// shown once), list (records only: a stored token has no value to show) and revoke.
import type { CustomTokenRecord } from "../store/port.js";
import { Csrf, Notice, type Ui } from "./layout.js";

/** A token just created: its value, for the one response that shows it. */
export interface ShownToken {
  app: string;
  id: string;
  name: string;
  token: string;
}

/** The lifetimes the form offers: seconds ("" = never expires), and how many of which unit. */
export const EXPIRY_CHOICES: ReadonlyArray<[string, number, "hour" | "day" | "year"] | [""]> = [
  [""],
  ["3600", 1, "hour"],
  ["86400", 1, "day"],
  ["604800", 7, "day"],
  ["2592000", 30, "day"],
  ["7776000", 90, "day"],
  ["31536000", 1, "year"],
];

const iso = (ms: number) => new Date(ms).toISOString();

function status(t: CustomTokenRecord, now: number): "active" | "revoked" | "expired" {
  if (t.revoked) return "revoked";
  return t.expiresAt !== undefined && t.expiresAt <= now ? "expired" : "active";
}

export function CustomTokensSection(p: {
  ui: Ui;
  clientId: string;
  tokens: CustomTokenRecord[];
  csrf: string;
  now: number;
  shown?: ShownToken | undefined;
}) {
  const { t, date, number } = p.ui;
  const base = `/developers/${encodeURIComponent(p.clientId)}/tokens`;
  const id = (what: string) => `${what}-${p.clientId}`;
  return (
    <div class="custom-tokens subsection">
      <h4>{t("tokens.title")}</h4>
      {p.shown ? (
        <Notice>
          <p>{t("tokens.created", { name: p.shown.name })}</p>
          <p>
            <code class="secret custom-token">{p.shown.token}</code>
          </p>
        </Notice>
      ) : null}
      <form method="post" action={base}>
        <Csrf token={p.csrf} />
        <div class="field">
          <label for={id("token-name")}>
            {t("tokens.name")} <span class="muted">({t("form.optional")})</span>
          </label>
          <input type="text" name="name" maxLength={64} id={id("token-name")} />
        </div>
        <div class="field">
          <label for={id("token-expires")}>{t("tokens.expires")}</label>
          <select name="expires_in" id={id("token-expires")}>
            {EXPIRY_CHOICES.map((c) => (
              <option key={c[0]} value={c[0]}>
                {c.length === 1 ? t("tokens.never") : number(c[1], { style: "unit", unit: c[2], unitDisplay: "long" })}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for={id("token-channels")}>
            {t("tokens.channels")} <span class="muted">({t("form.optional")})</span>
          </label>
          <span class="hint" id={id("token-channels-hint")}>
            {t("tokens.channelsHint")}
          </span>
          <input
            type="text"
            name="channels"
            id={id("token-channels")}
            maxLength={13_000}
            aria-describedby={id("token-channels-hint")}
          />
        </div>
        <div class="check">
          <input type="checkbox" name="publish" value="1" id={id("token-publish")} />
          <label for={id("token-publish")}>{t("tokens.publish")}</label>
        </div>
        <button type="submit" class="secondary">
          {t("tokens.create")}
        </button>
      </form>
      {p.tokens.length === 0 ? (
        <p class="muted">{t("tokens.none")}</p>
      ) : (
        <table class="custom-token-list stack">
          <thead>
            <tr>
              <th scope="col">{t("tokens.colName")}</th>
              <th scope="col">{t("tokens.colId")}</th>
              <th scope="col">{t("tokens.colCreated")}</th>
              <th scope="col">{t("tokens.colExpires")}</th>
              <th scope="col">{t("tokens.colStatus")}</th>
              <th scope="col">
                <span class="visually-hidden">{t("tokens.colActions")}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {p.tokens.map((tok) => {
              const s = status(tok, p.now);
              return (
                <tr key={tok.id} data-token-id={tok.id} data-status={s}>
                  <td class="token-name" data-label={t("tokens.colName")}>
                    {tok.name}
                  </td>
                  <td data-label={t("tokens.colId")}>
                    <code>{tok.id}</code>
                  </td>
                  <td data-label={t("tokens.colCreated")}>
                    <time dateTime={iso(tok.createdAt)}>{date(tok.createdAt)}</time>
                  </td>
                  <td data-label={t("tokens.colExpires")}>
                    {tok.expiresAt === undefined ? (
                      t("tokens.never")
                    ) : (
                      <time dateTime={iso(tok.expiresAt)}>{date(tok.expiresAt)}</time>
                    )}
                  </td>
                  <td class="status" data-label={t("tokens.colStatus")}>
                    {t(`tokens.${s}`)}
                  </td>
                  <td>
                    {tok.revoked ? null : (
                      <form method="post" action={`${base}/${encodeURIComponent(tok.id)}/revoke`}>
                        <Csrf token={p.csrf} />
                        <button type="submit" class="danger" aria-describedby={id(`token-${tok.id}`)}>
                          {t("tokens.revoke")}
                        </button>
                        <span hidden id={id(`token-${tok.id}`)}>
                          {tok.name || tok.id}
                        </span>
                      </form>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}
