// Shorthands for device authorization (RFC 8628) tests: the device's requests, and the person
// who enters the code on /device and allows or denies through the pages.
import { expect } from "chai";
import { http, type TestResponse } from "./http.js";
import { csrfOf, type PageClient } from "./pages.js";

export const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

export interface DeviceStart {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

const form = { "content-type": "application/x-www-form-urlencoded" };

/** POST /device_authorization with these fields (the client's credentials among them). */
export function deviceAuthorization(
  base: string,
  fields: Record<string, string>,
  localAddress?: string,
): Promise<TestResponse> {
  return http(base, "/device_authorization", {
    method: "POST",
    headers: form,
    body: new URLSearchParams(fields).toString(),
    ...(localAddress ? { localAddress } : {}),
  });
}

/** A started request, as the device reads it. */
export async function startDevice(base: string, fields: Record<string, string>): Promise<DeviceStart> {
  const r = await deviceAuthorization(base, fields);
  expect(r.status, r.text).to.equal(200);
  return r.json as DeviceStart;
}

/** One poll of /token with the device code. */
export function pollDevice(base: string, deviceCode: string, creds: Record<string, string>): Promise<TestResponse> {
  return http(base, "/token", {
    method: "POST",
    headers: form,
    body: new URLSearchParams({ grant_type: DEVICE_GRANT, device_code: deviceCode, ...creds }).toString(),
  });
}

/** The person types `code` on /device; the answer (the consent page when the code is good). */
export async function enterCode(person: PageClient, code: string): Promise<TestResponse> {
  const page = await person.get("/device");
  return person.post("/device", { _csrf: csrfOf(page.text), user_code: code });
}

/** The person types the code and allows (or denies) on the consent page; the last page. */
export async function decideDevice(
  person: PageClient,
  code: string,
  decision: "allow" | "deny",
): Promise<TestResponse> {
  const consent = await enterCode(person, code);
  expect(consent.status, consent.text.slice(0, 400)).to.equal(200);
  expect(consent.text).to.contain('action="/device/decide"');
  const userCode = /name="user_code" value="([^"]+)"/.exec(consent.text)![1]!;
  return person.post("/device/decide", { _csrf: csrfOf(consent.text), user_code: userCode, decision });
}
