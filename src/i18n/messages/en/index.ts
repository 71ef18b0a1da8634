// English: the reference catalog. Every other language is typed `Messages`, derived from this
// one, so a key missing from a translation is a type error (test/i18n.test.ts checks the
// placeholders too). `{name}` marks a value filled in when the page is rendered.
// The catalog is kept in parts (pages.ts, mail-api.ts, audit.ts, invitations.ts, demo.ts, events.ts, upstreams.ts, admin-upstreams.ts) so that each file fits on a screen.
import { audit } from "./audit.js";
import { mailApi } from "./mail-api.js";
import { invitations } from "./invitations.js";
import { demo } from "./demo.js";
import { events } from "./events.js";
import { device } from "./device.js";
import { pages } from "./pages.js";
import { upstreams } from "./upstreams.js";
import { adminUpstreams } from "./admin-upstreams.js";

export const en = {
  ...pages,
  ...mailApi,
  ...audit,
  ...invitations,
  ...demo,
  ...events,
  ...device,
  ...upstreams,
  ...adminUpstreams,
} as const;

/** Every key of the catalogs. */
export type MessageKey = keyof typeof en;
/** A catalog: every key, each a string. */
export type Messages = Readonly<Record<MessageKey, string>>;
/** A language's part 1 (pages.ts): every key of English's, each a string. */
export type PagesMessages = Readonly<Record<keyof typeof pages, string>>;
/** A language's part 3 (invitations.ts). */
export type InvitationsMessages = Readonly<Record<keyof typeof invitations, string>>;
/** A language's part 7 (device.ts). */
export type DeviceMessages = Readonly<Record<keyof typeof device, string>>;
/** A language's part 5 (events.ts). */
export type EventsMessages = Readonly<Record<keyof typeof events, string>>;
/** A language's part 2 (mail-api.ts). */
export type MailApiMessages = Readonly<Record<keyof typeof mailApi, string>>;
/** A language's part 3 (audit.ts). */
export type AuditMessages = Readonly<Record<keyof typeof audit, string>>;
/** A language's part 8 (admin-upstreams.ts). */
export type AdminUpstreamsMessages = Readonly<Record<keyof typeof adminUpstreams, string>>;
/** A language's part 6 (upstreams.ts). */
export type UpstreamsMessages = Readonly<Record<keyof typeof upstreams, string>>;
/** A language's part 5 (demo.ts). */
export type DemoMessages = Readonly<Record<keyof typeof demo, string>>;
