# An app's sign-in with Authlib (Debian's python3-authlib), unmodified, for test/oidc-rp-authlib.test.ts:
# configuration alone (the discovery document, a client id and secret, the redirect URL). One JSON
# object per line on stdout; the test answers on stdin.
#   argv: base_url client_id client_secret redirect_uri
#   out:  {"url": <authorization URL>}          in: <the URL Sigil sent the browser back to>
#   out:  {"claims": …, "userinfo": …, "token": [field names], "refreshed": …}   or   {"error": …}
import json
import secrets
import sys

import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import JsonWebKey, jwt
from authlib.oidc.core import CodeIDToken


def out(obj):
    print(json.dumps(obj), flush=True)


base, client_id, client_secret, redirect_uri = sys.argv[1:5]
meta = requests.get(base + "/.well-known/openid-configuration", timeout=10).json()
client = OAuth2Session(
    client_id,
    client_secret,
    scope="openid profile offline_access",
    redirect_uri=redirect_uri,
    code_challenge_method="S256",
    token_endpoint_auth_method="client_secret_basic",
)
nonce = secrets.token_urlsafe(16)
verifier = secrets.token_urlsafe(48)
url, state = client.create_authorization_url(
    meta["authorization_endpoint"], nonce=nonce, code_verifier=verifier, prompt="consent"
)
out({"url": url})

back = sys.stdin.readline().strip()
try:
    token = client.fetch_token(meta["token_endpoint"], authorization_response=back, code_verifier=verifier)
    keys = JsonWebKey.import_key_set(requests.get(meta["jwks_uri"], timeout=10).json())
    claims = jwt.decode(
        token["id_token"],
        keys,
        claims_cls=CodeIDToken,
        claims_options={"iss": {"essential": True, "value": meta["issuer"]}},
        claims_params={"nonce": nonce, "client_id": client_id, "access_token": token["access_token"]},
    )
    claims.validate()
    userinfo = client.get(meta["userinfo_endpoint"], timeout=10).json()
    refreshed = client.refresh_token(meta["token_endpoint"], refresh_token=token["refresh_token"])
    again = jwt.decode(
        refreshed["id_token"],
        keys,
        claims_cls=CodeIDToken,
        claims_options={"iss": {"essential": True, "value": meta["issuer"]}},
        claims_params={"client_id": client_id, "access_token": refreshed["access_token"]},
    )
    again.validate()
    out(
        {
            "alg": claims.header["alg"],
            "claims": dict(claims),
            "userinfo": userinfo,
            "token": sorted(token.keys()),
            "refreshed": {"sub": again["sub"], "new_refresh_token": refreshed["refresh_token"] != token["refresh_token"]},
        }
    )
except Exception as e:  # the test shows what Authlib refused
    out({"error": type(e).__name__ + ": " + str(e)})
