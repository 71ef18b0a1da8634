// Two-factor pages (docs/http-api.md#two-factor): the second sign-in step, the setup (QR code,
// secret, first code), the recovery codes shown once, and the section of /account.
import { Card, Csrf, ErrorNote, Field, Notice, Page, type FormProblem, type Ui } from "./layout.js";

const withReturn = (path: string, returnTo: string) => `${path}?${new URLSearchParams({ return_to: returnTo })}`;

/** A QR code's dark modules as one SVG path (drawn by the view: no inline style, no script). */
export interface QrCode {
  /** Modules per side. */
  size: number;
  /** SVG path data: one 1×1 square per dark module, in module units. */
  path: string;
}

function QrImage(p: { qr: QrCode; label: string }) {
  const box = p.qr.size + 8; // a quiet zone of 4 modules
  return (
    <svg
      class="qr"
      xmlns="http://www.w3.org/2000/svg"
      viewBox={`-4 -4 ${box} ${box}`}
      width={box * 5}
      height={box * 5}
      role="img"
      aria-label={p.label}
      shape-rendering="crispEdges"
    >
      <rect x={-4} y={-4} width={box} height={box} fill="#ffffff" />
      <path d={p.qr.path} fill="#000000" />
    </svg>
  );
}

export function CodeField(p: { ui: Ui; problem?: FormProblem | undefined; hint?: string }) {
  return (
    <Field
      id="code"
      name="code"
      label={p.ui.t("twofa.code")}
      hint={p.hint}
      problem={p.problem}
      control={(a) => (
        <input
          {...a}
          type="text"
          name="code"
          autocomplete="one-time-code"
          autocapitalize="none"
          spellcheck={false}
          required
          maxLength={64}
        />
      )}
    />
  );
}

/** The second step of a password sign-in with two-factor on. */
export function TwoFactorCodePage(p: { ui: Ui; csrf: string; returnTo: string; error?: FormProblem | undefined }) {
  const { t } = p.ui;
  return (
    <Page ui={p.ui} title={t("twofa.stepTitle")} narrow>
      <p class="lead">{t("twofa.stepLead")}</p>
      <ErrorNote ui={p.ui} problem={p.error} fields={["code"]} />
      <Card>
        <form method="post" action={withReturn("/signin/code", p.returnTo)}>
          <Csrf token={p.csrf} />
          <CodeField ui={p.ui} problem={p.error} hint={t("twofa.stepHint")} />
          <button type="submit" class="wide">
            {t("twofa.verify")}
          </button>
        </form>
      </Card>
      <p>
        <a href={withReturn("/signin", p.returnTo)}>{t("twofa.startOver")}</a>
      </p>
    </Page>
  );
}

/** The setup: scan or type the secret, then confirm with a first code. */
export function TwoFactorSetupPage(p: {
  ui: Ui;
  user: { username: string };
  csrf: string;
  qr: QrCode;
  /** The base32 secret, grouped by 4 for reading. */
  secret: string;
  pending: string;
  error?: FormProblem | undefined;
}) {
  const { t } = p.ui;
  return (
    <Page ui={p.ui} title={t("twofa.setupTitle")} user={p.user} csrf={p.csrf} current="account">
      <ErrorNote ui={p.ui} problem={p.error} fields={["code"]} />
      <Card labelledBy="scan">
        <h2 id="scan">{t("twofa.scan")}</h2>
        <p>{t("twofa.scanLead")}</p>
        <QrImage qr={p.qr} label={t("twofa.qrLabel")} />
        <p>{t("twofa.typeInstead")}</p>
        <p>
          <code class="secret totp-secret">{p.secret}</code>
        </p>
      </Card>
      <Card labelledBy="confirm">
        <h2 id="confirm">{t("twofa.confirm")}</h2>
        <form method="post" action="/account/2fa/confirm">
          <Csrf token={p.csrf} />
          <input type="hidden" name="pending" value={p.pending} />
          <CodeField ui={p.ui} problem={p.error} hint={t("twofa.confirmHint")} />
          <button type="submit">{t("twofa.turnOn")}</button>
        </form>
        <p>
          <a href="/account">{t("twofa.cancel")}</a>
        </p>
      </Card>
    </Page>
  );
}

/** The recovery codes, shown once, right after two-factor is turned on. */
export function RecoveryCodesPage(p: {
  ui: Ui;
  user: { username: string };
  csrf: string;
  codes: string[];
  /** New codes for two-factor that was on already (not a set-up). */
  fresh?: boolean;
}) {
  const { t } = p.ui;
  return (
    <Page
      ui={p.ui}
      title={t(p.fresh ? "twofa.recoveryTitle" : "twofa.onTitle")}
      user={p.user}
      csrf={p.csrf}
      current="account"
    >
      <Notice>
        <p>{t(p.fresh ? "twofa.newCodesNotice" : "twofa.onNotice")}</p>
      </Notice>
      <Card labelledBy="recovery">
        <h2 id="recovery">{t("twofa.recoveryTitle")}</h2>
        <p>{t("twofa.recoveryLead")}</p>
        <ul class="recovery-codes">
          {p.codes.map((c) => (
            <li key={c}>
              <code class="secret recovery-code">{c}</code>
            </li>
          ))}
        </ul>
        <p>
          <a href="/account">{t("twofa.done")}</a>
        </p>
      </Card>
    </Page>
  );
}

/** The two-factor section of /account: turn on, or (with a code) off. */
export function AccountTwoFactor(p: {
  ui: Ui;
  csrf: string;
  status: { on: boolean; recoveryCodesLeft: number };
  error?: FormProblem | undefined;
}) {
  const { t } = p.ui;
  return (
    <Card labelledBy="two-factor">
      <h2 id="two-factor">{t("twofa.section")}</h2>
      {p.status.on ? (
        <>
          <p class="twofa-status">{t("twofa.isOn", { count: p.status.recoveryCodesLeft })}</p>
          <form method="post" action="/account/2fa/disable">
            <Csrf token={p.csrf} />
            <CodeField ui={p.ui} problem={p.error} hint={t("twofa.offHint")} />
            <button type="submit" class="danger">
              {t("twofa.turnOff")}
            </button>
          </form>
          <form method="post" action="/account/2fa/recovery" class="subsection">
            <Csrf token={p.csrf} />
            <p class="muted">{t("twofa.newCodesHint")}</p>
            <button type="submit" class="secondary">
              {t("twofa.newCodes")}
            </button>
          </form>
          <form method="post" action="/account/2fa/setup" class="subsection">
            <Csrf token={p.csrf} />
            <input type="hidden" name="replace" value="1" />
            <p class="muted">{t("twofa.replaceHint")}</p>
            <button type="submit" class="secondary">
              {t("twofa.replace")}
            </button>
          </form>
        </>
      ) : (
        <>
          <p class="twofa-status muted">{t("twofa.isOff")}</p>
          <form method="post" action="/account/2fa/setup">
            <Csrf token={p.csrf} />
            <button type="submit">{t("twofa.setUp")}</button>
          </form>
        </>
      )}
    </Card>
  );
}
