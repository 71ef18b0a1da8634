// What the pages show of the upstream providers: the buttons, and /account's linked identities
// (apart from upstream.ts's handlers, which the account page's own module is imported by).
import type { PagesDeps } from "./context.js";
import type { LinkedIdentity, UpstreamButton } from "../../views/upstreams.js";

/** The buttons of the configured upstreams. */
export const upstreamButtons = (deps: PagesDeps): UpstreamButton[] =>
  deps.upstreams.list.map((u) => ({ id: u.id, name: u.name }));

/** /account's card data: the user's links, named by their upstream's button. */
export async function linkedIdentities(deps: PagesDeps, userId: string): Promise<LinkedIdentity[]> {
  const links = await deps.upstreamAccounts.links(userId);
  return links.map((l) => ({
    upstream: l.upstream,
    name: deps.upstreams.byId(l.upstream)?.name ?? l.upstream,
    issuer: l.issuer,
    subject: l.subject,
    who: l.email ?? l.subject,
  }));
}
