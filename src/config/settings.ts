// Every setting, once: the tables of server.ts and features.ts gathered, in the order of
// docs/settings.md. The Config type is derived from them (config.ts), docs/settings.md's tables
// are generated from them (scripts/settings-doc.ts, `npm run docs:settings`).
import { z } from "zod";
import { email, lifetimes, pages, realtime, solveLimits } from "./features.js";
import { addresses, secrets, serving, shutdown } from "./server.js";
import { identityEvents } from "./events.js";
import { upstreamSettings } from "./upstreams.js";

/** The tables, in the order of docs/settings.md; the first bad setting in this order is the one reported. */
export const areas = [
  addresses,
  secrets,
  lifetimes,
  solveLimits,
  realtime,
  identityEvents,
  pages,
  upstreamSettings,
  email,
  shutdown,
  serving,
] as const;

/** Every setting, by environment variable. */
export const settings = {
  ...addresses.settings,
  ...secrets.settings,
  ...lifetimes.settings,
  ...solveLimits.settings,
  ...realtime.settings,
  ...identityEvents.settings,
  ...pages.settings,
  ...upstreamSettings.settings,
  ...email.settings,
  ...shutdown.settings,
  ...serving.settings,
};
export type Settings = typeof settings;

/** Each setting's value, checked (environment variable → value). */
export type Values = { readonly [K in keyof Settings]: z.output<Settings[K]["schema"]> };

/** The Config fields that are one setting's value as it is; the dotted ones are grouped by config.ts. */
export type Fields = {
  readonly [
    K in keyof Settings as Settings[K]["field"] extends `${string}.${string}` ? never : Settings[K]["field"]
  ]: Values[K];
};

/** The whole environment's check: each setting's schema, in table order. */
export const schema = z.object(
  Object.fromEntries(Object.entries(settings).map(([name, s]) => [name, s.schema])) as {
    [K in keyof Settings]: Settings[K]["schema"];
  },
);
