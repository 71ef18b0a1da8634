// The browser bundle the service serves as /client.js. `npm test` builds it first (pretest);
// a single test file run by hand builds it here when it is missing.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { DEFAULT_BUNDLE_DIR } from "../../src/http/client-bundle.js";

export const BUNDLE_FILE = `${DEFAULT_BUNDLE_DIR}client.js`;

export function ensureClientBundle(): void {
  if (existsSync(BUNDLE_FILE)) return;
  const script = fileURLToPath(new URL("../../client/scripts/build.mjs", import.meta.url));
  const r = spawnSync(process.execPath, [script], { encoding: "utf8" });
  if (r.status !== 0 || !existsSync(BUNDLE_FILE)) throw new Error(`could not build the client bundle: ${r.stderr}`);
}

/** The pages' passkeys script (scripts/build-pages-js.mjs): built here when missing, as above. */
export const PAGES_SCRIPT_FILE = fileURLToPath(new URL("../../dist/browser/passkeys.js", import.meta.url));

export function ensurePagesScript(): void {
  if (existsSync(PAGES_SCRIPT_FILE)) return;
  const script = fileURLToPath(new URL("../../scripts/build-pages-js.mjs", import.meta.url));
  const r = spawnSync(process.execPath, [script], { encoding: "utf8" });
  if (r.status !== 0 || !existsSync(PAGES_SCRIPT_FILE))
    throw new Error(`could not build the pages' script: ${r.stderr}`);
}
