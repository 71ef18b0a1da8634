// The OpenID Connect parts one node holds (docs/http-api.md#openid-connect): its signing keys and
// its ID token signer, built once from the settings.
import type { Config } from "../config.js";
import type { Logger } from "../log.js";
import type { Store } from "../store/port.js";
import { SigningKeys, type KeyPairMaker } from "./keys.js";
import { IdTokens } from "./oidc.js";

export interface OpenId {
  keys: SigningKeys;
  idTokens: IdTokens;
}

/** ID tokens live as long as access tokens. makeKeyPair: how signing keys are made (tests give their own). */
export function openIdFor(config: Config, store: Store, log?: Logger, makeKeyPair?: KeyPairMaker): OpenId {
  const keys = new SigningKeys({
    store,
    ...(makeKeyPair ? { makeKeyPair } : {}),
    secret: config.secret,
    activationDelay: config.keyActivationDelay,
    cacheTtl: config.keyCacheTtl,
    tokenTtl: config.accessTokenTtl,
    alg: config.idTokenSigningAlg,
    // The key's id only (it is public, in the JWKS); never key material.
    onUnopenable: (kid) =>
      log?.error(
        { kid },
        "signing key cannot be opened with this SECRET (SECRET changed, or nodes do not share one): a new signing key replaces it; the old one stays in the JWKS until its ID tokens expire",
      ),
  });
  return { keys, idTokens: new IdTokens({ store, keys, issuer: config.baseUrl, ttl: config.accessTokenTtl }) };
}
