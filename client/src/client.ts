// The façade most apps use: one object holding the three parts of the API for one service.
import { challengeApi, type ChallengeApi } from "./challenges.js";
import type { Fetch } from "./http.js";
import { RealtimeConnection, type RealtimeOptions } from "./realtime.js";
import { signInApi, type SignInApi } from "./signin.js";

export interface ClientOptions {
  /**
   * Address of the service (`{base_url}`). In a browser that loaded /client.js from the service,
   * it defaults to where that script came from.
   */
  baseUrl?: string;
  /** Address of the user-facing pages (`{auth_url}`), when it differs from baseUrl. */
  authUrl?: string;
  /**
   * The issuer a sign-in callback's `iss` must name: Sigil's public BASE_URL. Defaults to
   * baseUrl; set it when your server reaches Sigil at another (internal) address.
   */
  issuer?: string;
  /** Another fetch; the global one by default. */
  fetch?: Fetch;
}

export interface SigilClient {
  readonly baseUrl: string;
  readonly challenges: ChallengeApi;
  readonly signIn: SignInApi;
  /** Opens the realtime channel with a CUSTOM TOKEN (`token`), or a user's access token (`accessToken`). */
  connect(options: Omit<RealtimeOptions, "baseUrl">): RealtimeConnection;
}

// Captured while the bundle's <script> runs: currentScript is only set during that first run.
// Only a script served as {base_url}/client.js counts, so that an app which bundled this module
// into its own script never gets its own address as a silent default.
const scriptBase: string | undefined = (() => {
  if (typeof document === "undefined") return undefined;
  const el = document.currentScript;
  if (!(el instanceof HTMLScriptElement) || !el.src) return undefined;
  const src = new URL(el.src);
  if (!src.pathname.endsWith("/client.js")) return undefined;
  return new URL(".", src).href.replace(/\/+$/, "");
})();

export function createClient(options: ClientOptions = {}): SigilClient {
  const baseUrl = (options.baseUrl ?? scriptBase)?.replace(/\/+$/, "");
  if (!baseUrl) throw new TypeError("createClient: baseUrl is required (the address of the Sigil service).");
  const http = { baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}) };
  return {
    baseUrl,
    challenges: challengeApi(http),
    signIn: signInApi({
      ...http,
      ...(options.authUrl ? { authUrl: options.authUrl } : {}),
      ...(options.issuer ? { issuer: options.issuer } : {}),
    }),
    connect: (realtime) => new RealtimeConnection({ ...realtime, baseUrl }),
  };
}
