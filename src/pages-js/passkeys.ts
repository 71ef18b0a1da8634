// The pages' one script (docs/pages.md#passkeys): passkeys on /signin (the button and autofill)
// and on /account (adding one, deleting the account with one), on /confirm ("Confirm it's you"), with @simplewebauthn/browser. Bundled by scripts/build-pages-js.mjs
// into dist/browser/passkeys.js, served as /assets/passkeys.<hash>.js. Everything it needs comes
// from the page's data attributes (CSRF token, return_to, translated messages) and JSON fetches;
// nothing inline. Without WebAuthn it leaves the page as the server sent it.
import {
  browserSupportsWebAuthn,
  browserSupportsWebAuthnAutofill,
  startAuthentication,
  startRegistration,
  WebAuthnAbortService,
} from "@simplewebauthn/browser";

async function post(path: string, csrf: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
    body: JSON.stringify(body),
  });
  const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  // "Confirm it's you" first (a proof older than REAUTH_MAX_AGE): to /confirm, and back here after.
  if (res.status === 401 && json.error === "reauth_required") {
    window.location.assign(`/confirm?${new URLSearchParams({ return_to: window.location.pathname })}`);
    throw new Error("reauth_required");
  }
  if (!res.ok)
    throw new Error(typeof json.error_description === "string" ? json.error_description : `HTTP ${res.status}`);
  return json;
}

function showError(el: HTMLElement | null) {
  if (!el) return;
  el.textContent = el.dataset.failed ?? "";
  el.hidden = false;
}

function cancelled(err: unknown): boolean {
  return (
    err instanceof Error && (err.name === "AbortError" || (err as { code?: string }).code === "ERROR_CEREMONY_ABORTED")
  );
}

async function signIn(box: HTMLElement, autofill: boolean): Promise<void> {
  const csrf = box.dataset.csrf ?? "";
  const error = document.getElementById("passkey-error");
  try {
    const optionsJSON = (await post("/signin/passkey/options", csrf, {})) as never;
    const response = await startAuthentication({ optionsJSON, useBrowserAutofill: autofill });
    const done = await post("/signin/passkey", csrf, { response, return_to: box.dataset.returnTo ?? "/account" });
    window.location.assign(typeof done.redirect === "string" ? done.redirect : "/account");
  } catch (err) {
    if (autofill && cancelled(err)) return; // the button took over, or the page left
    if (!autofill && err instanceof Error && err.name === "NotAllowedError") return; // the person cancelled
    showError(error);
  }
}

function setUpSignIn(box: HTMLElement) {
  box.hidden = false;
  document.getElementById("passkey-button")?.addEventListener("click", () => {
    WebAuthnAbortService.cancelCeremony();
    void signIn(box, false);
  });
  void browserSupportsWebAuthnAutofill().then((ok) => {
    if (ok) void signIn(box, true);
  });
}

function setUpAdd(form: HTMLFormElement) {
  form.hidden = false;
  const note = document.getElementById("passkey-needs-js");
  if (note) note.hidden = true;
  const error = document.getElementById("passkey-add-error");
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const csrf = form.dataset.csrf ?? "";
    const name = (form.elements.namedItem("name") as HTMLInputElement).value;
    void (async () => {
      try {
        const optionsJSON = (await post("/account/passkeys/options", csrf, {})) as never;
        const response = await startRegistration({ optionsJSON });
        await post("/account/passkeys", csrf, { name, response });
        window.location.replace("/account");
      } catch (err) {
        if (error) {
          error.textContent = `${form.dataset.failed ?? ""}${err instanceof Error && err.name !== "NotAllowedError" ? ` (${err.message})` : ""}`;
          error.hidden = false;
        }
      }
    })();
  });
}

/** "Delete with a passkey" on /account: a deletion ceremony, then where the server says (/signin). */
function setUpDelete(box: HTMLElement) {
  box.hidden = false;
  const button = document.getElementById("passkey-delete-button");
  const error = document.getElementById("passkey-delete-error");
  button?.addEventListener("click", () => {
    const csrf = box.dataset.csrf ?? "";
    if (error) error.hidden = true;
    void (async () => {
      try {
        const optionsJSON = (await post("/account/delete/passkey/options", csrf, {})) as never;
        const response = await startAuthentication({ optionsJSON });
        const done = await post("/account/delete/passkey", csrf, { response });
        window.location.assign(typeof done.redirect === "string" ? done.redirect : "/signin");
      } catch (err) {
        if (error) {
          error.textContent = `${box.dataset.failed ?? ""}${err instanceof Error && err.name !== "NotAllowedError" ? ` (${err.message})` : ""}`;
          error.hidden = false;
        }
      }
    })();
  });
}

/** "Confirm with a passkey" on /confirm: a confirmation ceremony, then back where the server says. */
function setUpConfirm(box: HTMLElement) {
  box.hidden = false;
  const button = document.getElementById("passkey-confirm-button");
  const error = document.getElementById("passkey-confirm-error");
  button?.addEventListener("click", () => {
    const csrf = box.dataset.csrf ?? "";
    if (error) error.hidden = true;
    void (async () => {
      try {
        const optionsJSON = (await post("/confirm/passkey/options", csrf, {})) as never;
        const response = await startAuthentication({ optionsJSON });
        const done = await post("/confirm/passkey", csrf, { response, return_to: box.dataset.returnTo ?? "/account" });
        window.location.assign(typeof done.redirect === "string" ? done.redirect : "/account");
      } catch (err) {
        if (err instanceof Error && err.name === "NotAllowedError") return; // the person cancelled
        showError(error);
      }
    })();
  });
}

function start() {
  if (!browserSupportsWebAuthn()) return;
  const box = document.getElementById("passkey-signin");
  if (box) setUpSignIn(box);
  const form = document.getElementById("passkey-add");
  if (form instanceof HTMLFormElement) setUpAdd(form);
  const del = document.getElementById("passkey-delete");
  if (del) setUpDelete(del);
  const confirmBox = document.getElementById("passkey-confirm");
  if (confirmBox) setUpConfirm(confirmBox);
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
