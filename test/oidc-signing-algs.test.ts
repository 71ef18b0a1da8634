// ID tokens signed with ES256 or EdDSA (ID_TOKEN_SIGNING_ALG, docs/settings.md), on both stores:
// the keys a node makes are of that kind, discovery and the JWKS say so, an unmodified relying
// party configured for the algorithm verifies the signature, and a switch from RS256 goes through
// a rotation without breaking the tokens signed before it.
import { expect } from "chai";
import { createHash } from "node:crypto";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import * as client from "openid-client";
import { SigningKeys } from "../src/domain/keys.js";
import { openIdFor } from "../src/domain/oidc-setup.js";
import { describeBackends, oneBackend } from "./support/backends.js";
import { TEST_SECRET } from "./support/nodes.js";
import { jwksOf, signInWith } from "./support/oidc.js";
import { PageClient, authorize, registerApp } from "./support/pages.js";

const REDIRECT = "http://127.0.0.1:8765/callback";

describeBackends(
  "ID token signing algorithms",
  (backend) => {
    // The hash of at_hash is the one of the ID token's alg (OpenID Connect Core §3.1.3.6): SHA-512
    // for Ed25519, as node-oidc-provider makes it and oauth4webapi checks c_hash and s_hash.
    for (const [alg, kty, crv, hash] of [
      ["ES256", "EC", "P-256", "sha256"],
      ["EdDSA", "OKP", "Ed25519", "sha512"],
    ] as const) {
      it(`When ID_TOKEN_SIGNING_ALG=${alg}, then discovery and the JWKS say so, openid-client verifies the ID token's signature (one pinned to RS256 refuses it), and at_hash is of ${hash}`, async () => {
        const base = (await backend.startNode({ ID_TOKEN_SIGNING_ALG: alg })).url;
        const dev = new PageClient(base);
        await dev.signUp("devon");
        const app = await registerApp(dev, [REDIRECT], "Curve App");
        const { set } = await jwksOf(base);
        expect(set.keys).to.have.length(1);
        expect(set.keys[0]).to.include({ kty, crv, alg, use: "sig" });
        expect(set.keys[0]).to.not.have.any.keys("n", "e", "d");
        // openid-client with discovery alone accepts what discovery lists; it checks the signature
        // against the JWKS with enableNonRepudiationChecks.
        const config = await client.discovery(
          new URL(base),
          app.clientId,
          undefined,
          client.ClientSecretBasic(app.clientSecret),
          { execute: [client.allowInsecureRequests, client.enableNonRepudiationChecks] },
        );
        expect(config.serverMetadata().id_token_signing_alg_values_supported).to.deep.equal([alg, "RS256"]);
        const verifier = client.randomPKCECodeVerifier();
        const nonce = client.randomNonce();
        const url = client.buildAuthorizationUrl(config, {
          redirect_uri: REDIRECT,
          scope: "openid profile",
          nonce,
          code_challenge: await client.calculatePKCECodeChallenge(verifier),
          code_challenge_method: "S256",
        });
        const landed = await authorize(dev, Object.fromEntries(url.searchParams));
        const tokens = await client.authorizationCodeGrant(config, landed, {
          pkceCodeVerifier: verifier,
          expectedNonce: nonce,
          idTokenExpected: true,
        });
        expect(decodeProtectedHeader(tokens.id_token!)).to.include({ alg, kid: set.keys[0]!.kid });
        expect(tokens.claims()).to.include({ iss: base, aud: app.clientId, nonce, preferred_username: "devon" });
        const digest = createHash(hash).update(tokens.access_token).digest();
        expect(tokens.claims()!.at_hash).to.equal(digest.subarray(0, digest.length / 2).toString("base64url"));
        // A relying party pinned to RS256 refuses it: why a switch needs such relying parties told.
        const pinned = await client.discovery(
          new URL(base),
          app.clientId,
          { id_token_signed_response_alg: "RS256" },
          client.ClientSecretBasic(app.clientSecret),
          { execute: [client.allowInsecureRequests] },
        );
        const v2 = client.randomPKCECodeVerifier();
        const params = client.buildAuthorizationUrl(pinned, {
          redirect_uri: REDIRECT,
          scope: "openid",
          code_challenge: await client.calculatePKCECodeChallenge(v2),
          code_challenge_method: "S256",
        }).searchParams;
        const again = await authorize(dev, Object.fromEntries(params));
        let refused: unknown;
        await client
          .authorizationCodeGrant(pinned, again, { pkceCodeVerifier: v2 })
          .catch((e: unknown) => (refused = e));
        expect(String((refused as Error | undefined)?.cause)).to.match(/unexpected JWT "alg"/);
      });
    }

    it("When the setting switches from RS256 to ES256 and a key is rotated, then tokens of the old key still verify, and ES256 signs once the new key is active", async () => {
      const node = await backend.startNode();
      const base = node.url;
      const dev = new PageClient(base);
      await dev.signUp("devon");
      const app = await registerApp(dev, ["https://rp.example/cb"]);
      const before = await signInWith(base, dev, app, { scope: "openid" });
      const oldToken = before.json.id_token as string;
      expect(decodeProtectedHeader(oldToken).alg).to.equal("RS256");

      let now = Date.now();
      const keys = (alg: "RS256" | "ES256") =>
        new SigningKeys({
          store: node.opened.store,
          secret: TEST_SECRET,
          activationDelay: 60,
          cacheTtl: 0,
          tokenTtl: 3600,
          alg,
          now: () => now,
        });
      const { kid } = await keys("ES256").rotate(); // what `sigil keys rotate` runs with the new setting
      const published = (await jwksOf(base)).set.keys;
      expect(published.map((k) => k.alg)).to.have.members(["RS256", "ES256"]);
      // Still RS256 until the new key activates, whatever the node's setting.
      expect((await keys("ES256").signer()).alg).to.equal("RS256");
      now += 61_000;
      const signer = await keys("RS256").signer();
      expect(signer).to.include({ kid, alg: "ES256" });
      // Both kinds verify against the one JWKS (a relying party that accepts both).
      const jwks = createLocalJWKSet({ keys: published });
      await jwtVerify(oldToken, jwks, { issuer: base, audience: app.clientId, algorithms: ["RS256"] });
      // An id_token_hint signed with the old key still names its user (logout after the switch).
      const { idTokens } = openIdFor({ ...node.config, idTokenSigningAlg: "ES256" }, node.opened.store);
      expect(await idTokens.verifyHint(oldToken)).to.include({ aud: app.clientId });
    });
  },
  oneBackend("redis"),
);
