// The OpenID Connect parameters of an authorization request (OpenID Connect Core §3.1.2.1;
// docs/http-api.md#authorization-parameters), checked: read only when `scope` holds openid.
import { message, type MessageRef, type PlainErrorId } from "../errors.js";
import { grantedScopes, type IdTokenHint } from "./oidc.js";
import { codePointLength } from "./text.js";

/** What an OpenID Connect request asks for, checked. */
export interface OpenIdAsk {
  scopes: string[];
  nonce: string | undefined;
  prompt: Set<string>;
  maxAge: number | undefined;
  loginHint: string | undefined;
  hint: IdTokenHint | undefined;
}

/** The request's parameters this reads (absent ones undefined). */
export interface OpenIdParams {
  scope?: string | undefined;
  response_type?: string | undefined;
  response_mode?: string | undefined;
  nonce?: string | undefined;
  prompt?: string | undefined;
  max_age?: string | undefined;
  login_hint?: string | undefined;
  id_token_hint?: string | undefined;
  request?: string | undefined;
  request_uri?: string | undefined;
  registration?: string | undefined;
}

/** An error to send back to the app: the redirect's error and (rendered in English) error_description. */
export interface OpenIdRefusal {
  error: string;
  description: MessageRef;
}

const refuse = (error: string, id: PlainErrorId | MessageRef): OpenIdRefusal => ({
  error,
  description: typeof id === "string" ? message(id) : id,
});

/**
 * Checks the OpenID Connect parameters: what is asked, or the refusal to redirect with.
 * verifyHint checks an id_token_hint (IdTokens.verifyHint).
 */
export async function readOpenIdRequest(
  p: OpenIdParams,
  verifyHint: (hint: string) => Promise<IdTokenHint | null>,
): Promise<OpenIdAsk | OpenIdRefusal> {
  if (p.request !== undefined) return refuse("request_not_supported", "err.requestObject");
  if (p.request_uri !== undefined) return refuse("request_uri_not_supported", "err.requestUri");
  if (p.registration !== undefined) return refuse("registration_not_supported", "err.registration");
  if (p.response_type === undefined) return refuse("invalid_request", "err.oidcResponseType");
  if (p.response_mode !== undefined && p.response_mode !== "query")
    return refuse("invalid_request", "err.responseMode");
  if (p.nonce !== undefined && codePointLength(p.nonce) > 2000) return refuse("invalid_request", "err.nonceTooLong");
  const prompt = new Set((p.prompt ?? "").split(" ").filter(Boolean));
  if (prompt.has("none") && prompt.size > 1) return refuse("invalid_request", "err.promptNone");
  let maxAge: number | undefined;
  if (p.max_age !== undefined) {
    if (!/^\d{1,10}$/.test(p.max_age))
      return refuse("invalid_request", message("err.wholeSeconds", { name: "max_age" }));
    maxAge = Number(p.max_age);
  }
  let hint: IdTokenHint | undefined;
  if (p.id_token_hint !== undefined) {
    const h = await verifyHint(p.id_token_hint);
    if (!h) return refuse("invalid_request", "err.hintUnknown");
    hint = h;
  }
  return {
    scopes: grantedScopes(p.scope).scopes,
    nonce: p.nonce,
    prompt,
    maxAge,
    loginHint: p.login_hint?.slice(0, 256),
    hint,
  };
}

/** Whether this request needs the person to sign in (again), given their session's sign-in time. */
export function needsSignIn(
  ask: OpenIdAsk,
  session: { userId: string; authTime: number | undefined },
  now: number,
): boolean {
  if (ask.prompt.has("login") || ask.prompt.has("select_account")) return true;
  // A session from before OpenID Connect does not know when it began.
  if (session.authTime === undefined) return true;
  if (ask.maxAge !== undefined && Math.floor(now / 1000) - session.authTime > ask.maxAge) return true;
  return ask.hint !== undefined && ask.hint.sub !== session.userId;
}
