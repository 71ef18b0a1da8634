// `sigil apps create --owner U --name N --redirect-uri URL [...] [--public] [--post-logout-redirect-uri URL ...] [--homepage URL]`
// → {"client_id","client_secret","name","redirect_uris"} (the secret is shown this once); with
// --public (a browser or mobile app: no secret, PKCE) → {"client_id","name","redirect_uris","public": true};
// and "post_logout_redirect_uris" and "homepage" when given.
// `sigil apps update --client-id ID [--name N] [--redirect-uri URL ...] [--post-logout-redirect-uri URL ...]
// [--homepage URL] [--m2m-scope "A B"] [--webhook-url URL] [--webhook-channels LIST] [--backchannel-logout-uri URL]` →
// the app as above, without a secret; options not given stay as they are; with a webhook URL set,
// "webhook_secret" (this once).
// `sigil apps list [--owner U]` → JSON lines, one app a line, in client id order (never a secret).
import { FormError } from "../domain/accounts.js";
import { GroupError } from "../domain/groups.js";
import { checkM2mScopes } from "../domain/client-credentials.js";
import { EventEndpoints } from "../domain/event-endpoints.js";
import { parseWebhookChannels } from "../domain/channel-webhooks.js";
import type { AppRecord } from "../store/port.js";
import { JsonLines, UsageError, required, type CliCommand } from "./common.js";

/** An app as the CLI prints it, never with a secret. */
const shown = (app: AppRecord) => ({
  client_id: app.clientId,
  name: app.name,
  redirect_uris: app.redirectUris,
  ...(app.public ? { public: true } : {}),
  ...(app.postLogoutRedirectUris?.length ? { post_logout_redirect_uris: app.postLogoutRedirectUris } : {}),
  ...(app.homepage !== undefined ? { homepage: app.homepage } : {}),
  ...(app.groups?.length ? { groups: app.groups } : {}),
  ...(app.disabled ? { disabled: true } : {}),
  ...(app.trusted ? { trusted: true } : {}),
  ...(app.m2mScopes?.length ? { m2m_scopes: app.m2mScopes } : {}),
  ...(app.webhookUrl !== undefined ? { webhook_url: app.webhookUrl } : {}),
  ...(app.webhookChannels?.length ? { webhook_channels: app.webhookChannels } : {}),
  ...(app.backchannelLogoutUri !== undefined ? { backchannel_logout_uri: app.backchannelLogoutUri } : {}),
});

/** An on|off option: true, false, or undefined when not given; anything else is a usage error. */
function onOff(values: Record<string, unknown>, name: string): boolean | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  if (v === "on" || v === "off") return v === "on";
  throw new UsageError(`--${name} takes on or off`);
}

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
      services.audit.record({
        type: "app.created",
        userId: owner.id,
        username: owner.username,
        clientId: app.clientId,
        origin: "operator",
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

export const appsUpdate: CliCommand = {
  name: "apps update",
  description:
    'Edits an app\'s name, redirect URLs, post-logout URLs, homepage, client credentials scopes (--m2m-scope; "" clears), webhook URL, the channels also sent to the webhook, or back-channel logout URL; its client id, secret, consents and tokens stay. Setting a webhook URL prints its new signing secret this once; an empty value clears it.',
  usage:
    "--client-id ID [--name NAME] [--redirect-uri URL ...] [--post-logout-redirect-uri URL ...] [--homepage URL] [--groups G,H] [--disabled on|off] [--trusted on|off] [--m2m-scope SCOPES] [--webhook-url URL] [--webhook-channels LIST] [--backchannel-logout-uri URL]",
  options: {
    "client-id": { type: "string" },
    name: { type: "string" },
    "redirect-uri": { type: "string", multiple: true },
    "post-logout-redirect-uri": { type: "string", multiple: true },
    homepage: { type: "string" },
    groups: { type: "string" },
    disabled: { type: "string" },
    trusted: { type: "string" },
    "m2m-scope": { type: "string" },
    "webhook-url": { type: "string" },
    "webhook-channels": { type: "string" },
    "backchannel-logout-uri": { type: "string" },
  },
  async run({ services, values }) {
    const clientId = required(values, "client-id").trim();
    const disabled = onOff(values, "disabled");
    const trusted = onOff(values, "trusted");
    const app = await services.apps.byClientId(clientId);
    if (!app) throw new UsageError("No app has this client_id.");
    // --groups G,H: only members of G or H may sign in to it; --groups "": everyone again.
    let groups: string[] | undefined;
    if (typeof values.groups === "string") {
      const names = values.groups.split(",").map((g) => g.trim());
      if (names.length === 1 && names[0] === "") groups = [];
      else {
        try {
          groups = await services.groups.existingAll(names);
        } catch (err) {
          if (err instanceof GroupError) throw new UsageError(`--groups: ${err.message}`);
          throw err;
        }
      }
    }
    try {
      // The endpoints are checked first: a refused one changes nothing at all.
      if (typeof values["webhook-url"] === "string") EventEndpoints.check(values["webhook-url"], "webhook");
      if (typeof values["backchannel-logout-uri"] === "string")
        EventEndpoints.check(values["backchannel-logout-uri"], "backchannel");
      if (typeof values["webhook-channels"] === "string") parseWebhookChannels(values["webhook-channels"]);
      // --m2m-scope "a b": the scopes of its client credentials tokens; "": none (the grant is refused).
      const m2mScopes = typeof values["m2m-scope"] === "string" ? checkM2mScopes(values["m2m-scope"]) : undefined;
      if (m2mScopes !== undefined && m2mScopes.length > 0 && app.public) {
        throw new UsageError("--m2m-scope: a public client cannot use client credentials");
      }
      let updated = await services.apps.update(app, {
        ...(values.name !== undefined ? { name: values.name as string } : {}),
        ...(values["redirect-uri"] !== undefined ? { redirectUris: values["redirect-uri"] as string[] } : {}),
        ...(values["post-logout-redirect-uri"] !== undefined
          ? { postLogoutRedirectUris: values["post-logout-redirect-uri"] as string[] }
          : {}),
        ...(values.homepage !== undefined ? { homepage: values.homepage as string } : {}),
        ...(groups !== undefined ? { groups } : {}),
        ...(disabled !== undefined ? { disabled } : {}),
        ...(trusted !== undefined ? { trusted } : {}),
        ...(m2mScopes !== undefined ? { m2mScopes } : {}),
      });
      // The event endpoints, checked before anything is written (a refused one changes nothing).
      const endpoints = {
        webhookUrl: values["webhook-url"] as string | undefined,
        backchannelLogoutUri: values["backchannel-logout-uri"] as string | undefined,
        webhookChannels: values["webhook-channels"] as string | undefined,
      };
      let webhookSecret: string | undefined;
      if (Object.values(endpoints).some((v) => v !== undefined)) {
        ({ app: updated, webhookSecret } = await services.eventEndpoints.set(updated, endpoints));
      }
      services.audit.record({ type: "app.updated", userId: app.ownerId, clientId: app.clientId, origin: "operator" });
      if (disabled !== undefined && disabled !== (app.disabled === true))
        services.audit.record({
          type: disabled ? "app.disabled" : "app.enabled",
          userId: app.ownerId,
          clientId: app.clientId,
          origin: "operator",
        });
      if (trusted !== undefined && trusted !== (app.trusted === true))
        services.audit.record({
          type: trusted ? "app.trusted" : "app.untrusted",
          userId: app.ownerId,
          clientId: app.clientId,
          origin: "operator",
        });
      return { ...shown(updated), ...(webhookSecret !== undefined ? { webhook_secret: webhookSecret } : {}) };
    } catch (err) {
      if (err instanceof FormError) throw new UsageError(err.description);
      throw err;
    }
  },
};

const LIST_PAGE = 500;

/** One line of apps list: every field an operator reviews, the flags always present. */
function listLine(app: AppRecord, owner: string | null) {
  return {
    client_id: app.clientId,
    name: app.name,
    owner,
    redirect_uris: app.redirectUris,
    public: app.public === true,
    trusted: app.trusted === true,
    disabled: app.disabled === true,
    groups: app.groups ?? [],
    m2m_scopes: app.m2mScopes ?? [],
    created_at: new Date(app.createdAt).toISOString(),
  };
}

export const appsList: CliCommand = {
  name: "apps list",
  usage: "[--owner USERNAME]",
  description: "Prints every app (or those of one user with --owner) as JSON lines, without secrets.",
  options: { owner: { type: "string" } },
  // Not readOnly: the list walks an index that data version 3 brought (an older store is migrated first).
  async run({ services, values }) {
    if (typeof values.owner === "string") {
      const ownerName = values.owner.trim().toLowerCase();
      const owner = ownerName === "" ? null : await services.accounts.byUsername(ownerName);
      if (!owner) throw new UsageError(`there is no user "${ownerName}"`);
      const apps = (await services.apps.listByOwner(owner.id)).toSorted((a, b) =>
        a.clientId < b.clientId ? -1 : a.clientId > b.clientId ? 1 : 0,
      );
      return new JsonLines(apps.map((a) => listLine(a, owner.username)));
    }
    const names = new Map<string, string | null>();
    const ownerName = async (id: string) => {
      if (names.size > 10_000) names.clear(); // a bounded cache of owners' usernames
      if (!names.has(id)) names.set(id, (await services.accounts.byId(id))?.username ?? null);
      return names.get(id)!;
    };
    return new JsonLines(
      (async function* () {
        for (let after: string | undefined; ;) {
          const page = await services.apps.list({ limit: LIST_PAGE, ...(after === undefined ? {} : { after }) });
          for (const app of page) yield listLine(app, await ownerName(app.ownerId));
          if (page.length < LIST_PAGE) return;
          after = page.at(-1)!.clientId;
        }
      })(),
    );
  },
};
