// Upstream providers ("Continue with …", docs/upstream-providers.md): UPSTREAM_LINK_BY_EMAIL is an
// ordinary setting; the providers themselves are named by the operator (UPSTREAM_<ID>_KIND, …), so
// no fixed table can hold them: readUpstreams() finds them in the environment at config load (config
// is the only reader of the environment) and checks them there, failing fast on the first bad one.
import { z } from "zod";
import { area, httpUrl, setting, type Setting } from "./setting.js";

export const UPSTREAM_KINDS = ["oidc", "github"] as const;
export type UpstreamKind = (typeof UPSTREAM_KINDS)[number];

/** One upstream provider, checked. */
export interface Upstream {
  /** Lower case: the path of its callback, {auth_url}/upstream/<id>/callback. */
  readonly id: string;
  readonly kind: UpstreamKind;
  /** The button's "Continue with <name>". */
  readonly name: string;
  /** oidc: the issuer, discovered at {issuer}/.well-known/openid-configuration; github: its web address. */
  readonly issuer: string;
  /** github: its REST API (GET /user, /user/emails). */
  readonly apiUrl?: string;
  readonly clientId: string;
  readonly clientSecret: string;
}

const text = (what: string) =>
  z
    .string(`is required`)
    .transform((s) => s.trim())
    .pipe(z.string().min(1, `is required`).max(512, `must be at most 512 characters`))
    .describe(what);

/** The rows of docs/settings.md for the named settings (their field: the list they make). */
const doc = (meaning: string, values: string, byDefault = "none (required)"): Setting =>
  setting("upstreams", z.unknown() as never, { meaning, values, default: byDefault });

export const upstreamSettings = area(
  "upstreams",
  "accepted values",
  {
    UPSTREAM_LINK_BY_EMAIL: setting(
      "upstreamLinkByEmail",
      z
        .enum(["true", "false"], "must be true or false")
        .default("false")
        .transform((v) => v === "true"),
      {
        meaning:
          "a first sign-in through an upstream whose identity has a verified email address (`email_verified`) that an account here already has links to that account; otherwise it is linked only once its owner signs in to it ([upstream providers](upstream-providers.md))",
        values: "`true`, `false`",
      },
    ),
  },
  {
    "UPSTREAM_<ID>_KIND": doc(
      "adds the upstream provider `<ID>` (letters and digits; its callback is `{auth_url}/upstream/<id>/callback`, in lower case)",
      "`oidc` (any OpenID provider, by its issuer), `github` (GitHub's OAuth 2.0 and user API)",
      "none: no upstream",
    ),
    "UPSTREAM_<ID>_ISSUER": doc(
      "the upstream's issuer (kind `oidc`), discovered when first used (and again after a failure); for `github`, GitHub's address (GitHub Enterprise Server's)",
      "absolute `http(s)` URL",
      "required for `oidc`; `https://github.com` for `github`",
    ),
    "UPSTREAM_<ID>_API_URL": doc(
      "kind `github` only: its REST API (`GET /user`, `/user/emails`)",
      "absolute `http(s)` URL",
      "`https://api.github.com`; `{issuer}/api/v3` for another issuer",
    ),
    "UPSTREAM_<ID>_CLIENT_ID": doc("the client id Sigil was given at the upstream", "up to 512 characters"),
    "UPSTREAM_<ID>_CLIENT_SECRET": doc("its client secret there", "up to 512 characters"),
    "UPSTREAM_<ID>_NAME": doc(
      "the name on the button (“Continue with …”)",
      "1–40 characters",
      "`<ID>`; `GitHub` for `github`",
    ),
  },
);

const NAMED = /^UPSTREAM_([A-Z0-9]+)_(KIND|ISSUER|API_URL|CLIENT_ID|CLIENT_SECRET|NAME)$/;

/** The parts of one upstream's settings (UPSTREAM_<ID>_<part>). */
export type UpstreamPart = "KIND" | "ISSUER" | "API_URL" | "CLIENT_ID" | "CLIENT_SECRET" | "NAME";

/** A bad upstream setting: the variable, its part, and what is wrong (config.ts makes it a ConfigError). */
export class UpstreamSettingError extends Error {
  constructor(
    readonly setting: string,
    message: string,
    readonly part?: UpstreamPart,
  ) {
    super(message);
  }
}

/** The upstreams the environment names, checked, in the order of their ids. */
export function readUpstreams(env: Record<string, string | undefined>): Upstream[] {
  const byId = new Map<string, Record<string, string>>();
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith("UPSTREAM_") || name in upstreamSettings.settings || raw === undefined || raw === "") continue;
    const m = NAMED.exec(name);
    if (!m) {
      throw new UpstreamSettingError(
        name,
        "is not an upstream setting (UPSTREAM_<ID>_KIND, _ISSUER, _API_URL, _CLIENT_ID, _CLIENT_SECRET or _NAME, <ID> of letters and digits)",
      );
    }
    const [, id, key] = m as unknown as [string, string, string];
    const one = byId.get(id) ?? {};
    one[key] = raw;
    byId.set(id, one);
  }
  return [...byId.keys()].sort().map((id) => checkUpstream(id, byId.get(id)!));
}

/**
 * One upstream's parts, checked as the settings are (the admin pages' form too,
 * domain/upstream-providers.ts): the upstream, or an UpstreamSettingError naming the bad part.
 * `id` is letters and digits (the caller checks it); a part that is absent is not set.
 */
export function checkUpstream(id: string, v: Partial<Record<UpstreamPart, string>>): Upstream {
  const named = (key: UpstreamPart) => `UPSTREAM_${id}_${key}`;
  const read = <T>(key: UpstreamPart, schema: z.ZodType<T, string | undefined>): T => {
    const r = schema.safeParse(v[key]);
    if (!r.success) throw new UpstreamSettingError(named(key), r.error.issues[0]!.message, key);
    return r.data;
  };
  const kind = read("KIND", z.enum(UPSTREAM_KINDS, `is required, and must be oidc or github`));
  const github = kind === "github";
  // GitHub is no OpenID provider: its web address (GitHub Enterprise Server's, or the tests') and
  // its REST API's stand in for the issuer; the API's only for github.
  const issuer = read(
    "ISSUER",
    github ? httpUrl.default("https://github.com") : z.string("is required for kind oidc").pipe(httpUrl),
  );
  if (!github && v.API_URL !== undefined)
    throw new UpstreamSettingError(named("API_URL"), "is only for kind github", "API_URL");
  const apiUrl = github
    ? read("API_URL", httpUrl.default(issuer === "https://github.com" ? "https://api.github.com" : `${issuer}/api/v3`))
    : undefined;
  return {
    id: id.toLowerCase(),
    kind,
    name: read(
      "NAME",
      z
        .string()
        .trim()
        .min(1)
        .max(40, "must be 1 to 40 characters")
        .default(github ? "GitHub" : id),
    ),
    issuer,
    ...(apiUrl ? { apiUrl } : {}),
    clientId: read("CLIENT_ID", text("client id")),
    clientSecret: read("CLIENT_SECRET", text("client secret")),
  };
}
