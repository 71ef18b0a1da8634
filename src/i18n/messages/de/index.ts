// Deutsch. Typed by the English catalog: a missing key is a type error.
import type { Messages } from "../en/index.js";
import { audit } from "./audit.js";
import { mailApi } from "./mail-api.js";
import { invitations } from "./invitations.js";
import { demo } from "./demo.js";
import { events } from "./events.js";
import { device } from "./device.js";
import { pages } from "./pages.js";
import { upstreams } from "./upstreams.js";
import { adminUpstreams } from "./admin-upstreams.js";

export const de: Messages = {
  ...pages,
  ...mailApi,
  ...audit,
  ...invitations,
  ...demo,
  ...events,
  ...device,
  ...upstreams,
  ...adminUpstreams,
};
