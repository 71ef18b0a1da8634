// `sigil keys rotate` → {"kid"} (docs/cli.md#sigil-keys-rotate): a new ID token signing key, in the
// JWKS at once; every node signs with it KEY_ACTIVATION_DELAY (this command's setting) later.
import type { CliCommand } from "./common.js";

export const keysRotate: CliCommand = {
  name: "keys rotate",
  description: "Makes a new ID token signing key, used after KEY_ACTIVATION_DELAY.",
  usage: "",
  options: {},
  async run({ services }) {
    const { kid, activatesAt } = await services.openid.keys.rotate();
    services.audit.record({ type: "key.rotated", origin: "operator" });
    return { kid, activates_at: new Date(activatesAt).toISOString() };
  },
};
