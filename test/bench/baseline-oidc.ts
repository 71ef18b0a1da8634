// The baseline for the sign-in benchmarks: panva's oidc-provider (a dev dependency used only here)
// with its default in-memory adapter, in its own process on loopback. One confidential client and
// one account are configured; the interaction (login, then consent) is finished programmatically at
// /interaction/:uid — the minimal interaction a real deployment replaces with its own pages — so the
// bench gets codes and access tokens through the provider's real /auth → /token flow.
// Run as `node --import tsx test/bench/baseline-oidc.ts` with PORT, CLIENT_ID, CLIENT_SECRET,
// REDIRECT_URI.
import { generateKeyPairSync } from "node:crypto";
import { createServer } from "node:http";
import Provider from "oidc-provider";
// @ts-expect-error -- untyped deep imports of oidc-provider's own memory adapter and its LRU
import MemoryAdapter from "oidc-provider/lib/adapters/memory_adapter.js";
// @ts-expect-error -- see above
import LRU from "oidc-provider/lib/helpers/lru.js";

const env = process.env;
const port = Number(env.PORT ?? 3000);
const issuer = `http://127.0.0.1:${port}`;
const ACCOUNT = "alice-0001";

// The memory adapter keeps at most 1,000 entries by default (an LRU): a pool of a few thousand codes
// minted ahead would be evicted before it is traded. The same adapter class over the same LRU
// helper, with a larger bound, shared by every model as the default one is.
const store = new LRU({ maxSize: 1_000_000 });
const adapter = (model: string) => new MemoryAdapter(model, store, 0);

// SIGNING_ALG=ES256: an EC P-256 key, and the client's ID tokens signed with it (the bench's
// ES256 row); otherwise oidc-provider's own RSA development key (RS256).
const es256 = env.SIGNING_ALG === "ES256";
const jwks = es256
  ? {
      keys: [
        {
          ...generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "jwk" }),
          kid: "bench-ec",
          use: "sig",
          alg: "ES256",
        },
      ],
    }
  : undefined;

// CC_SCOPE: the client may also use the client credentials grant with this scope (the bench's
// client credentials row).
const ccScope = env.CC_SCOPE;

const provider = new Provider(issuer, {
  ...(jwks ? { jwks } : {}),
  clients: [
    {
      client_id: env.CLIENT_ID ?? "bench-client",
      client_secret: env.CLIENT_SECRET ?? "bench-client-secret-0123456789",
      redirect_uris: [env.REDIRECT_URI ?? "https://app.example/callback"],
      grant_types: ccScope ? ["authorization_code", "client_credentials"] : ["authorization_code"],
      ...(ccScope ? { scope: `openid profile ${ccScope}` } : {}),
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
      ...(es256 ? { id_token_signed_response_alg: "ES256" } : {}),
    },
  ],
  async findAccount(_ctx: unknown, id: string) {
    return {
      accountId: id,
      async claims() {
        return { sub: id, preferred_username: "alice", name: "Alice Liddell", picture: `${issuer}/pictures/${id}.png` };
      },
    };
  },
  claims: { openid: ["sub"], profile: ["name", "preferred_username", "picture"] },
  scopes: ccScope ? ["openid", "profile", ccScope] : ["openid", "profile"],
  features: { devInteractions: { enabled: false }, clientCredentials: { enabled: !!ccScope } },
  interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
  pkce: { required: () => true },
  // Sigil's bench runs with CODE_TTL=600 too, so a pool of codes minted ahead lasts the run.
  ttl: { AuthorizationCode: 600, AccessToken: 3600, Session: 86400, Interaction: 600, Grant: 86400 },
  cookies: { keys: ["bench-cookie-key-0123456789abcdef"] },
  adapter,
} as any);
provider.proxy = false;
// Why a trade failed (the bench prints this process's output when one does).
let reported = 0;
provider.on("grant.error", (_ctx: unknown, err: { message: string; error_detail?: string }) => {
  if (reported++ < 3) process.stderr.write(`grant.error: ${err.message} ${err.error_detail ?? ""}\n`);
});

const callback = provider.callback();

const server = createServer(async (req, res) => {
  const url = req.url ?? "/";
  if (url === "/healthz") {
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    return;
  }
  if (url.startsWith("/interaction/")) {
    try {
      const details: any = await provider.interactionDetails(req, res);
      const { prompt, params, session } = details;
      if (prompt.name === "login") {
        await provider.interactionFinished(
          req,
          res,
          { login: { accountId: ACCOUNT } },
          { mergeWithLastSubmission: false },
        );
        return;
      }
      // consent: grant what the request asked for (the user clicks "allow")
      const grant = details.grantId
        ? await provider.Grant.find(details.grantId)
        : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
      if (prompt.details.missingOIDCScope) grant!.addOIDCScope(prompt.details.missingOIDCScope.join(" "));
      if (prompt.details.missingOIDCClaims) grant!.addOIDCClaims(prompt.details.missingOIDCClaims);
      const grantId = await grant!.save();
      await provider.interactionFinished(
        req,
        res,
        { consent: details.grantId ? {} : { grantId } },
        { mergeWithLastSubmission: true },
      );
    } catch (err) {
      res.writeHead(500, { "content-type": "text/plain" }).end(String(err));
    }
    return;
  }
  callback(req, res);
});
server.keepAliveTimeout = 65_000;
server.listen(port, "127.0.0.1");

const stop = () => server.close(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
