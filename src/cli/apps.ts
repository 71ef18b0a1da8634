// `sigil apps create --owner U --name N --redirect-uri URL [...] [--public] [--post-logout-redirect-uri URL ...]`
// → {"client_id","client_secret","name","redirect_uris"} (the secret is shown this once); with
// --public (a browser or mobile app: no secret, PKCE) → {"client_id","name","redirect_uris","public": true};
// and "post_logout_redirect_uris" when some were given.
import { Accounts, FormError } from "../domain/accounts.js";
import { Apps } from "../domain/apps.js";
import { UsageError, required, type CliCommand } from "./common.js";

export const appsCreate: CliCommand = {
  name: "apps create",
  usage:
    "--owner USERNAME --name NAME --redirect-uri URL [--redirect-uri URL ...] [--public] [--post-logout-redirect-uri URL ...]",
  options: {
    owner: { type: "string" },
    name: { type: "string" },
    "redirect-uri": { type: "string", multiple: true },
    public: { type: "boolean" },
    "post-logout-redirect-uri": { type: "string", multiple: true },
  },
  async run({ config, opened, values }) {
    const ownerName = required(values, "owner").trim().toLowerCase();
    const name = required(values, "name");
    const uris = (values["redirect-uri"] as string[] | undefined) ?? [];
    if (uris.length === 0) throw new UsageError("--redirect-uri is required");
    const owner = await new Accounts(opened.store).byUsername(ownerName);
    if (!owner) throw new UsageError(`there is no user "${ownerName}"`);
    try {
      const apps = new Apps({ store: opened.store, secret: config.secret, gracePeriod: config.secretGracePeriod });
      const postLogout = (values["post-logout-redirect-uri"] as string[] | undefined) ?? [];
      const { app, clientSecret } = await apps.create(owner.id, name, uris, {
        public: values.public === true,
        postLogoutRedirectUris: postLogout,
      });
      const logout = app.postLogoutRedirectUris ? { post_logout_redirect_uris: app.postLogoutRedirectUris } : {};
      if (clientSecret === undefined) {
        return { client_id: app.clientId, name: app.name, redirect_uris: app.redirectUris, public: true, ...logout };
      }
      return {
        client_id: app.clientId,
        client_secret: clientSecret,
        name: app.name,
        redirect_uris: app.redirectUris,
        ...logout,
      };
    } catch (err) {
      if (err instanceof FormError) throw new UsageError(err.description);
      throw err;
    }
  },
};
