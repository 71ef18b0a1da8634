// What the pages show of the upstream providers: the buttons, and /account's linked identities
// (apart from upstream.ts's handlers, which the account page's own module is imported by). The
// list is read on each view: a provider added or removed on /admin shows on every node at once.
import type { PagesDeps } from "./context.js";
import type { LinkedIdentity, UpstreamButton } from "../../views/upstreams.js";

/** The buttons of the upstreams offered now. */
export const upstreamButtons = async (deps: PagesDeps): Promise<UpstreamButton[]> =>
  (await deps.upstreams.list()).map((u) => ({ id: u.id, name: u.name }));

/** /account's card data: the user's links, named by their upstream's button (its id once it is gone). */
export async function linkedIdentities(deps: PagesDeps, userId: string): Promise<LinkedIdentity[]> {
  const links = await deps.upstreamAccounts.links(userId);
  const offered = links.length ? await deps.upstreams.list() : [];
  return links.map((l) => ({
    upstream: l.upstream,
    name: offered.find((u) => u.id === l.upstream)?.name ?? l.upstream,
    issuer: l.issuer,
    subject: l.subject,
    who: l.email ?? l.subject,
  }));
}
