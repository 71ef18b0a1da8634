// The requests the client's server-side sign-in calls send (docs/http-api.md#sign-in-with-sigil): exchangeCode and
// getUser, and how answers that are errors or lack what the docs promise come back. A tiny
// recorder only captures the request the client sends and answers as told — it is not a
// stand-in for Sigil (the live run is client-signin-live.test.ts).
import { expect } from "chai";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createClient, generateVerifier, type SigilClient } from "../client/src/index.js";
import { rejection } from "./support/client-errors.js";

interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

describe("Client: the server-side sign-in requests", () => {
  let recorder: Server;
  let seen: Recorded[];
  let reply: { status: number; body: unknown };
  let sigil: SigilClient;

  before(async () => {
    recorder = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        seen.push({
          method: req.method ?? "",
          url: req.url ?? "",
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
        });
        res.writeHead(reply.status, { "content-type": "application/json" }).end(JSON.stringify(reply.body));
      });
    });
    await new Promise<void>((resolve) => recorder.listen(0, "127.0.0.1", resolve));
    sigil = createClient({ baseUrl: `http://127.0.0.1:${(recorder.address() as AddressInfo).port}` });
  });
  beforeEach(() => {
    seen = [];
  });
  after(() => new Promise<void>((resolve) => recorder.close(() => resolve())));

  it("When the app trades a code, then it POSTs a form to /token with the code, redirect, credentials and verifier in the body", async () => {
    reply = { status: 200, body: { access_token: "at", token_type: "Bearer", expires_in: 3600, scope: "profile" } };
    const token = await sigil.signIn.exchangeCode({
      code: "the-code",
      verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
      redirectUri: "https://app.example/cb",
      clientId: "app-123",
      clientSecret: "s3cr3t",
    });
    expect(token).to.deep.equal(reply.body);
    expect(seen).to.have.length(1);
    const req = seen[0]!;
    expect(req.method).to.equal("POST");
    expect(req.url).to.equal("/token");
    expect(req.headers["content-type"]).to.equal("application/x-www-form-urlencoded");
    expect(Object.fromEntries(new URLSearchParams(req.body))).to.deep.equal({
      grant_type: "authorization_code",
      code: "the-code",
      redirect_uri: "https://app.example/cb",
      client_id: "app-123",
      client_secret: "s3cr3t",
      code_verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
    });
    expect(req.headers.authorization).to.equal(undefined);
  });

  it("When the app reads the user, then it GETs /auth/user with the Bearer token and client_id headers, nothing in the URL", async () => {
    const user = {
      id: "u1",
      username: "alice",
      display_name: "Alice Liddell",
      profile_picture: "https://sigil.example/p/u1",
    };
    reply = { status: 200, body: user };
    expect(await sigil.signIn.getUser("the-access-token", "app-123")).to.deep.equal(user);
    const req = seen[0]!;
    expect(req.method).to.equal("GET");
    expect(req.url).to.equal("/auth/user");
    expect(req.headers.authorization).to.equal("Bearer the-access-token");
    expect(req.headers["client_id"]).to.equal("app-123");
  });

  it("When the answer is an error object, then it becomes a SigilError with the status", async () => {
    reply = { status: 400, body: { error: "invalid_grant", error_description: "The code is not valid." } };
    const err = await rejection(
      sigil.signIn.exchangeCode({
        code: "c",
        verifier: generateVerifier(),
        redirectUri: "r",
        clientId: "c",
        clientSecret: "s",
      }),
    );
    expect(err).to.include({ code: "invalid_grant", status: 400, description: "The code is not valid." });
  });

  it("When a 200 answer lacks what the docs promise, then it is invalid_response, not a half-typed object", async () => {
    reply = { status: 200, body: { access_token: 42 } };
    try {
      await sigil.signIn.getUser("t", "c");
      expect.fail("no error");
    } catch (err) {
      expect(err).to.include({ code: "invalid_response" });
    }
  });
});
