// `sigil status` → {"store", "data_version"} (docs/cli.md#sigil-status): which store the settings
// name, and the data version recorded in it. It only reads: on a store no node has started on,
// data_version is null (the first node records it; store/migrations.ts).
import type { CliCommand } from "./common.js";
import { CURRENT_DATA_VERSION } from "../store/migrations.js";

export const status: CliCommand = {
  name: "status",
  description: "Prints which store the settings name and its data version; only reads.",
  usage: "",
  options: {},
  readOnly: true,
  // DATA_DIR=:memory: lives and dies with the server process, which makes it at this version.
  embedded: () => ({ store: "embedded", data_version: CURRENT_DATA_VERSION }),
  async run({ opened }) {
    return { store: opened.store.kind, data_version: await opened.store.meta.dataVersion() };
  },
};
