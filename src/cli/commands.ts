// Every `sigil` command (docs/cli.md), each defined in src/cli/<resource>.ts, and the usage text
// that lists them. src/cli.ts runs them; test/docs-claims.test.ts checks docs/cli.md against them.
import { appsCreate, appsList, appsUpdate } from "./apps.js";
import type { CliCommand } from "./common.js";
import { keysRotate } from "./keys.js";
import { status } from "./status.js";
import { backup, restore } from "./backup.js";
import { tokensCommands } from "./tokens.js";
import { groupsCommands } from "./groups.js";
import { invitationsCommands } from "./invitations.js";
import { upstreamsCommands } from "./upstreams.js";
import {
  usersCreate,
  usersDelete,
  usersResetPassword,
  usersList,
  usersResetTwoFactor,
  usersSetAdmin,
} from "./users.js";
import { usersDisable, usersEnable } from "./users-disable.js";
import { audit } from "./audit.js";

export const commands: readonly CliCommand[] = [
  usersCreate,
  usersList,
  usersResetPassword,
  usersResetTwoFactor,
  usersSetAdmin,
  usersDelete,
  usersDisable,
  usersEnable,
  appsCreate,
  appsUpdate,
  appsList,
  ...tokensCommands(),
  ...groupsCommands,
  ...invitationsCommands,
  ...upstreamsCommands,
  keysRotate,
  status,
  backup,
  restore,
  audit,
];

export function usage(): string {
  return ["usage: sigil <command> [options]", ...commands.map((c) => `  sigil ${c.name} ${c.usage}`)].join("\n");
}
