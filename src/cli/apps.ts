// `sigil apps create --owner U --name N --redirect-uri URL [...] [--public] [--post-logout-redirect-uri URL ...] [--homepage URL]`
// → {"client_id","client_secret","name","redirect_uris"} (the secret is shown this once); with
// --public (a browser or mobile app: no secret, PKCE) → {"client_id","name","redirect_uris","public": true};
// and "post_logout_redirect_uris" and "homepage" when given.
import { FormError } from "../domain/accounts.js";
import { UsageError, required, type CliCommand } from "./common.js";

export const appsCreate: CliCommand = {
  name: "apps create",
  description: "Registers an app (an OAuth client) for a user; its client secret is shown this once.",
  usage:
    "--owner USERNAME --name NAME --redirect-uri URL [--redirect-uri URL ...] [--public] [--post-logout-redirect-uri URL ...] [--homepage URL]",
  options: {
    owner: { type: "string" },
    name: { type: "string" },
    "redirect-uri": { type: "string", multiple: true },
    public: { type: "boolean" },
    "post-logout-redirect-uri": { type: "string", multiple: true },
    homepage: { type: "string" },
  },
  async run({ services, values }) {
    const ownerName = required(values, "owner").trim().toLowerCase();
    const name = required(values, "name");
    const uris = (values["redirect-uri"] as string[] | undefined) ?? [];
    if (uris.length === 0) throw new UsageError("--redirect-uri is required");
    const owner = await services.accounts.byUsername(ownerName);
    if (!owner) throw new UsageError(`there is no user "${ownerName}"`);
    try {
      const postLogout = (values["post-logout-redirect-uri"] as string[] | undefined) ?? [];
      const { app, clientSecret } = await services.apps.create(owner.id, name, uris, {
        public: values.public === true,
        postLogoutRedirectUris: postLogout,
        homepage: values.homepage as string | undefined,
      });
      const logout = {
        ...(app.postLogoutRedirectUris ? { post_logout_redirect_uris: app.postLogoutRedirectUris } : {}),
        ...(app.homepage !== undefined ? { homepage: app.homepage } : {}),
      };
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
