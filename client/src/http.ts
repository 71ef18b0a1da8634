// fetch with the documented error handling (docs/errors.md): any non-2xx answer throws a SigilError, and a
// request that never reaches the service throws one too (code network_error), so callers
// handle a single error type. Uses the global fetch of browsers and Node 20.
import { errorFromResponse, SigilError } from "./errors.js";

export type Fetch = typeof globalThis.fetch;

export interface HttpOptions {
  /** Address of the service (`{base_url}`), e.g. https://sigil.example.com */
  baseUrl: string;
  /** Another fetch (tests, proxies, a polyfill); the global one by default. */
  fetch?: Fetch;
}

/** "https://x/y/" → "https://x/y": paths are appended to it. */
export function trimBase(url: string): string {
  return url.replace(/\/+$/, "");
}

export async function send(opts: HttpOptions, path: string, init: RequestInit): Promise<Response> {
  const doFetch = opts.fetch ?? globalThis.fetch;
  let res: Response;
  try {
    res = await doFetch(`${trimBase(opts.baseUrl)}${path}`, { ...init, credentials: "omit", redirect: "error" });
  } catch (err) {
    // fetch rejects only when no response arrived (DNS, refused, CORS, offline): say which call.
    throw new SigilError("network_error", `Could not reach the service for ${path}: ${(err as Error)?.message ?? err}`);
  }
  if (!res.ok) throw await errorFromResponse(res);
  return res;
}

/** A JSON answer, checked to be an object with the expected shape. */
export async function readJson<T>(res: Response, valid: (v: unknown) => v is T, what: string): Promise<T> {
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  if (!valid(body))
    throw new SigilError(
      "invalid_response",
      `The service's answer to ${what} is not in the format the service documents.`,
      res.status,
    );
  return body;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
