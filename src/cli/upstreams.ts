// `sigil upstreams list|add|remove` (docs/cli.md#sigil-upstreams-list): the upstream providers
// ("Continue with …") an admin manages on /admin/upstreams, from the command line, through the same
// domain (domain/upstream-providers.ts): the same checks, the client secret sealed under SECRET and
// never printed, each change in the audit log (upstream.*, actor operator). A refused value is a
// usage error naming the option, and nothing is stored. The settings' providers are listed too.
import type { Upstream } from "../config/upstreams.js";
import { UpstreamFormError, type UpstreamField, type UpstreamInput } from "../domain/upstream-providers.js";
import type { StoredUpstreamRecord } from "../store/port.js";
import { JsonLines, UsageError, password, required, type CliCommand, type CliContext } from "./common.js";

const OPTION_OF: Record<UpstreamField, string> = {
  id: "id",
  kind: "kind",
  name: "name",
  issuer: "issuer",
  api_url: "api-url",
  client_id: "client-id",
  client_secret: "client-secret",
};

const callbackOf = (ctx: CliContext, id: string) => `${ctx.config.authUrl}/upstream/${id}/callback`;

function line(ctx: CliContext, u: Upstream | StoredUpstreamRecord, from: "settings" | "admin") {
  return {
    id: u.id,
    kind: u.kind,
    name: u.name,
    issuer: u.issuer,
    ...(u.apiUrl ? { api_url: u.apiUrl } : {}),
    client_id: u.clientId,
    callback: callbackOf(ctx, u.id),
    from,
  };
}

const text = (ctx: CliContext, name: string) => {
  const v = ctx.values[name];
  return typeof v === "string" ? v : undefined;
};

export const upstreamsCommands: readonly CliCommand[] = [
  {
    name: "upstreams list",
    usage: "",
    description:
      'Prints every upstream provider, one JSON line each: {"id","kind","name","issuer","api_url"?,"client_id","callback","from"} (from: settings or admin; never the secret).',
    options: {},
    readOnly: true,
    async run(ctx) {
      const p = ctx.services.upstreamProviders;
      const stored = (await p.listStored()).filter((r) => !p.isSetting(r.id));
      return new JsonLines([
        ...p.fromSettings.map((u) => line(ctx, u, "settings")),
        ...stored.map((r) => line(ctx, r, "admin")),
      ]);
    },
  },
  {
    name: "upstreams add",
    usage: "--kind oidc|github --id ID --client-id C --client-secret S|- [--name N] [--issuer URL] [--api-url URL]",
    description:
      'Adds an upstream provider, as /admin/upstreams does (--client-secret -: read from standard input) → {"id","callback"}.',
    options: {
      kind: { type: "string" },
      id: { type: "string" },
      name: { type: "string" },
      issuer: { type: "string" },
      "api-url": { type: "string" },
      "client-id": { type: "string" },
      "client-secret": { type: "string" },
    },
    async run(ctx) {
      const input: UpstreamInput = {};
      for (const [field, option] of Object.entries(OPTION_OF) as Array<[UpstreamField, string]>) {
        const v = field === "client_secret" ? await password(ctx, option) : text(ctx, option);
        if (v !== undefined) input[field] = v;
      }
      required(ctx.values, "kind");
      required(ctx.values, "id");
      try {
        const added = await ctx.services.upstreamProviders.add(input);
        ctx.services.audit.record({ type: "upstream.added", upstream: added.id, origin: "operator" });
        return { id: added.id, callback: callbackOf(ctx, added.id) };
      } catch (err) {
        if (err instanceof UpstreamFormError) throw new UsageError(`--${OPTION_OF[err.field]} ${err.message}`);
        throw err;
      }
    },
  },
  {
    name: "upstreams remove",
    usage: "--id ID",
    description:
      'Removes an upstream provider added on /admin (its accounts\' links are kept) → {"id","accounts"} (accounts: how many are linked through it).',
    options: { id: { type: "string" } },
    async run(ctx) {
      const id = required(ctx.values, "id").toLowerCase();
      const p = ctx.services.upstreamProviders;
      if (p.isSetting(id))
        throw new UsageError(`the provider "${id}" is set by the settings (UPSTREAM_*): remove it there`);
      const unknown = () => new UsageError(`there is no upstream provider "${id.slice(0, 64)}"`);
      if (!(await p.get(id))) throw unknown();
      const offered = (await ctx.services.upstreams.list()).map((u) => u.id);
      const { accounts } = await p.use(id, offered);
      if (!(await p.remove(id))) throw unknown();
      ctx.services.audit.record({ type: "upstream.removed", upstream: id, origin: "operator" });
      return { id, accounts };
    },
  },
];
