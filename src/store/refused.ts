// Why a node (or the CLI) will not work on a store: its data version is newer than this code's,
// there is no way to migrate it, Redis may evict keys, or (the CLI) the store was made with
// another SECRET. The message is the one line the operator reads (it names the versions or the
// setting); main.ts logs it and exits non-zero.
export class StoreRefusedError extends Error {
  override name = "StoreRefusedError";
}
