// The page frame, its components, and the one way pages become HTML: preact renders to a string and
// escapes every text and attribute value, so user text can never become markup. Sending is HTTP's
// (http/pages/send-page.ts). The look is assets/sigil.css; the words are src/i18n (docs/pages.md).
import type { ComponentChildren, VNode } from "preact";
import { renderToString } from "preact-render-to-string";
import { LANGUAGE_NAMES, LOCALES, type Translator } from "../i18n/index.js";

/** What every page needs besides its own data: its language, the service's name and look. */
export interface Ui extends Translator {
  readonly service: { readonly name: string; readonly logoUrl?: string | undefined };
  /** The stylesheet's address (content-hashed, cached for long). */
  readonly stylesheet: string;
  /** The icon's address (content-hashed, cached for long). */
  readonly icon: string;
  /** Where the language menu comes back to: this page, as a same-site path. */
  readonly here: string;
}

/** A message to show on a form: its text (in the page's language) and the field it is about. */
export interface FormProblem {
  text: string;
  field?: string | undefined;
}

export function Page(props: {
  ui: Ui;
  title: string;
  user?: { username: string } | undefined;
  csrf?: string | undefined;
  /** The narrow column of the sign-in pages (sign in, sign up, consent, errors). */
  narrow?: boolean;
  /** The menu entry of this page, marked aria-current. */
  current?: "account" | "developers";
  /** A script of this service the page needs (passkeys), loaded deferred; the page's CSP allows it. */
  script?: string | undefined;
  children: ComponentChildren;
}) {
  const { ui } = props;
  const { t } = ui;
  const service = ui.service.name;
  const here = new URLSearchParams({ return_to: ui.here });
  return (
    <html lang={ui.locale}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>{t("layout.title", { title: props.title, service })}</title>
        <link rel="stylesheet" href={ui.stylesheet} />
        <link rel="icon" href={ui.icon} type="image/svg+xml" />
        {props.script ? <script src={props.script} defer /> : null}
      </head>
      <body>
        <a class="skip" href="#main">
          {t("layout.skip")}
        </a>
        <header class="top">
          <div class="bar">
            <span class="brand">
              {ui.service.logoUrl ? (
                // Decorative: the service's name stands next to it.
                <img src={ui.service.logoUrl} alt="" />
              ) : (
                <span class="mark" aria-hidden="true">
                  {[...service][0]?.toUpperCase()}
                </span>
              )}
              <span class="service-name">{service}</span>
            </span>
            {props.user && props.csrf ? (
              <nav aria-label={t("layout.menu")}>
                <ul class="menu">
                  <li>
                    <a href="/account" aria-current={props.current === "account" ? "page" : undefined}>
                      {t("layout.account")}
                    </a>
                  </li>
                  <li>
                    <a href="/developers" aria-current={props.current === "developers" ? "page" : undefined}>
                      {t("layout.developers")}
                    </a>
                  </li>
                  <li>
                    <form method="post" action="/signout">
                      <Csrf token={props.csrf} />
                      <button type="submit" class="secondary">
                        {t("layout.signout")}
                      </button>
                    </form>
                  </li>
                </ul>
              </nav>
            ) : null}
          </div>
        </header>
        <main id="main" class={props.narrow ? "narrow" : undefined}>
          <h1>{props.title}</h1>
          {props.children}
        </main>
        <footer>
          <nav class="bar" aria-labelledby="language-menu">
            <h2 id="language-menu">{t("layout.language")}</h2>
            <ul class="langs">
              {LOCALES.map((l) => (
                <li key={l}>
                  <a
                    href={`/lang?lang=${l}&${here}`}
                    lang={l}
                    hreflang={l}
                    aria-current={l === ui.locale ? "true" : undefined}
                  >
                    {LANGUAGE_NAMES[l]}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        </footer>
      </body>
    </html>
  );
}

/** A white card: a block of the page. */
export function Card(props: { class?: string; labelledBy?: string; children: ComponentChildren }) {
  const cls = props.class ? `card ${props.class}` : "card";
  // A section only with a heading to name it (an unnamed section is no landmark, only noise).
  return props.labelledBy ? (
    <section class={cls} aria-labelledby={props.labelledBy}>
      {props.children}
    </section>
  ) : (
    <div class={cls}>{props.children}</div>
  );
}

export function Csrf(props: { token: string }) {
  return <input type="hidden" name="_csrf" value={props.token} />;
}

/**
 * The end of an admin's confirm step before something is removed: the form that does it
 * (confirm=yes, a danger button) and the way back (cancel).
 */
export function ConfirmRemoval(p: { ui: Ui; csrf: string; action: string; label: string; back: string }) {
  return (
    <>
      <form method="post" action={p.action}>
        <Csrf token={p.csrf} />
        <input type="hidden" name="confirm" value="yes" />
        <button type="submit" class="danger">
          {p.label}
        </button>
      </form>
      <p>
        <a href={p.back}>{p.ui.t("adminUsers.cancel")}</a>
      </p>
    </>
  );
}

/** The attributes that tie a control to its hint and error. */
export interface ControlAttrs {
  id: string;
  "aria-describedby"?: string;
  "aria-invalid"?: "true";
}

/**
 * A labelled form control with an optional hint and an inline error, both tied to the control by
 * aria-describedby (and aria-invalid when in error). `control` draws the control with those
 * attributes. The id is the field's name unless given.
 */
export function Field(p: {
  id: string;
  label: string;
  hint?: string | undefined;
  /** The problem shown on the form, if it is about this field (matched by `name`). */
  problem?: FormProblem | undefined;
  name: string;
  control: (a: ControlAttrs) => VNode;
}) {
  const error = p.problem?.field === p.name ? p.problem.text : undefined;
  const describedBy = [p.hint ? `${p.id}-hint` : "", error ? `${p.id}-error` : ""].filter(Boolean).join(" ");
  return (
    <div class="field">
      <label for={p.id}>{p.label}</label>
      {p.hint ? (
        <span class="hint" id={`${p.id}-hint`}>
          {p.hint}
        </span>
      ) : null}
      {p.control({
        id: p.id,
        ...(describedBy ? { "aria-describedby": describedBy } : {}),
        ...(error ? { "aria-invalid": "true" as const } : {}),
      })}
      {error ? (
        <p class="field-error" id={`${p.id}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** The email address field (sign-up, /account): what the accounts service accepts (at most 254 characters). */
export function EmailField(p: {
  label: string;
  hint?: string | undefined;
  value: string;
  problem?: FormProblem | undefined;
}) {
  return (
    <Field
      id="email"
      name="email"
      label={p.label}
      hint={p.hint}
      problem={p.problem}
      control={(a) => (
        <input
          {...a}
          type="email"
          name="email"
          autocomplete="email"
          autocapitalize="none"
          spellcheck={false}
          maxLength={254}
          value={p.value}
        />
      )}
    />
  );
}

/** The field that sets a password (sign-up, reset): the rules the accounts service applies (8–128). */
export function NewPasswordField(p: { label: string; hint: string; problem?: FormProblem | undefined }) {
  return (
    <Field
      id="password"
      name="password"
      label={p.label}
      hint={p.hint}
      problem={p.problem}
      control={(a) => (
        <input
          {...a}
          type="password"
          name="password"
          autocomplete="new-password"
          required
          minLength={8}
          maxLength={128}
        />
      )}
    />
  );
}

/**
 * The problem with the last submission, at the top of the form: its text, and a link to the field
 * it is about (where the same text stands next to the field).
 */
export function ErrorNote(props: { ui: Ui; problem?: FormProblem | undefined; fields?: readonly string[] }) {
  const p = props.problem;
  if (!p) return null;
  const field = p.field && (props.fields ?? []).includes(p.field) ? p.field : undefined;
  return (
    <div class="error" role="alert">
      {field ? (
        <p>
          <strong>{props.ui.t("form.problem")}</strong>
          <br />
          <a href={`#${field}`}>{p.text}</a>
        </p>
      ) : (
        <p>
          <strong>{p.text}</strong>
        </p>
      )}
    </div>
  );
}

/** A confirmation or a value shown once. */
export function Notice(props: { children: ComponentChildren }) {
  return (
    <div class="notice" role="status">
      {props.children}
    </div>
  );
}

/** A page's one-line notice of what was just done, when there is one. */
export function Said(p: { notice?: string | undefined }) {
  return p.notice ? (
    <Notice>
      <p>{p.notice}</p>
    </Notice>
  ) : null;
}

/** A page as a whole HTML document. */
export function renderPage(page: VNode): string {
  return `<!doctype html>${renderToString(page)}`;
}
