// Sign-in from a browser page as a public client (docs/http-api.md#public-clients): the page starts
// the authorization with PKCE S256 and a state, both made with Web Crypto; the verifier waits in
// sessionStorage under its state (never in a URL); the redirect page checks that the state is one
// this browser began, then trades the code itself with client_id alone. Sigil answers /token
// (and /revoke) cross-origin for the origins of the app's redirect URLs.
import type { TokenResponse } from "../../src/protocol.js";
import { SigilError } from "./errors.js";

/** The part of Web Storage the flow uses (sessionStorage by default). */
export type SignInStorage = Pick<Storage, "getItem" | "setItem" | "removeItem">;

export interface BeginInput {
  clientId: string;
  /** One of the app's registered redirect URLs: the page that calls complete(). */
  redirectUri: string;
  /** e.g. "profile offline_access" to get a refresh token. */
  scope?: string;
  /** Where the verifier waits; sessionStorage by default (this tab only, gone when it closes). */
  storage?: SignInStorage;
  /** false: only return the URL (the app navigates itself); true by default. */
  navigate?: boolean;
}

export interface CompleteInput {
  /** The redirect URL Sigil sent the browser to; the page's own address by default. */
  callback?: string | URL;
  storage?: SignInStorage;
}

/** What waits in storage between begin and complete (never the code or a token). */
interface Pending {
  clientId: string;
  redirectUri: string;
  verifier: string;
}

const KEY = "sigil.signin.";

function defaultStorage(): SignInStorage {
  if (typeof sessionStorage === "undefined") {
    throw new TypeError("begin/complete need sessionStorage (a browser) or a storage option.");
  }
  return sessionStorage;
}

function readPending(raw: string | null): Pending | undefined {
  if (raw === null) return undefined;
  try {
    const v = JSON.parse(raw) as Partial<Pending>;
    if (typeof v.clientId === "string" && typeof v.redirectUri === "string" && typeof v.verifier === "string") {
      return v as Pending;
    }
  } catch {
    // not ours: treated as absent
  }
  return undefined;
}

/** What begin() returns: the URL it sends the page to, and the state and verifier it kept. */
export interface BegunSignIn {
  url: string;
  state: string;
  verifier: string;
}

/** The steps of signin.ts this flow is made of (passed in, so the two files do not import each other). */
export interface SignInSteps {
  authorize(input: { clientId: string; redirectUri: string; scope?: string }): Promise<BegunSignIn>;
  parseCallback(callback: URLSearchParams, expected: { state: string }): { code: string };
  exchangeCode(input: {
    code: string;
    verifier: string;
    redirectUri: string;
    clientId: string;
  }): Promise<TokenResponse>;
}

export function browserSignIn(api: SignInSteps) {
  return {
    async begin(input: BeginInput): Promise<BegunSignIn> {
      const storage = input.storage ?? defaultStorage();
      const req = await api.authorize({
        clientId: input.clientId,
        redirectUri: input.redirectUri,
        ...(input.scope !== undefined ? { scope: input.scope } : {}),
      });
      const pending: Pending = { clientId: input.clientId, redirectUri: input.redirectUri, verifier: req.verifier };
      storage.setItem(KEY + req.state, JSON.stringify(pending));
      if (input.navigate !== false) {
        if (typeof location === "undefined") throw new TypeError("begin: no page to navigate; pass navigate: false.");
        location.assign(req.url);
      }
      return req;
    },

    async complete(input: CompleteInput = {}): Promise<TokenResponse> {
      const storage = input.storage ?? defaultStorage();
      const callback = new URL(input.callback ?? location.href, "http://callback.invalid");
      const state = callback.searchParams.get("state") ?? "";
      const pending = state ? readPending(storage.getItem(KEY + state)) : undefined;
      if (!pending) {
        throw new SigilError(
          "state_mismatch",
          "The sign-in response does not belong to a sign-in this browser started (state).",
        );
      }
      // One use: whatever happens next, this state cannot complete a second time.
      storage.removeItem(KEY + state);
      const { code } = api.parseCallback(callback.searchParams, { state });
      return api.exchangeCode({
        code,
        verifier: pending.verifier,
        redirectUri: pending.redirectUri,
        clientId: pending.clientId,
      });
    },
  };
}
