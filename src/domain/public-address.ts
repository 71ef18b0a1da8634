// Where a delivery may go (DELIVERY_ALLOW_PRIVATE): only to public addresses, unless allowed. An
// app's webhook or back-channel URL is chosen by whoever registers the app; without this check,
// Sigil would POST for them to this host's own services (loopback) or its network's (private
// ranges, the cloud's metadata address), and show them how each answered. The check is made on
// the address the connection really uses (a name is resolved once, and that address is connected
// to), so a name that resolves to a public address at registration and a private one later gains
// nothing.
import { lookup, type LookupAddress, type LookupAllOptions } from "node:dns";
import { BlockList, isIP } from "node:net";

const NOT_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, the cloud metadata address
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, "ipv6");

/** Whether an IP address (v4 or v6, an IPv4-mapped v6 too) is outside the public internet. */
export function isNotPublic(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return NOT_PUBLIC.check(mapped[1]!, "ipv4");
  const family = isIP(address);
  if (family === 0) return true; // not an address at all: refuse
  return NOT_PUBLIC.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** The error of a connection refused by the check (its code names it in the delivery list). */
export class NotPublicError extends Error {
  readonly code = "ENOTPUBLIC";
  constructor() {
    super("the address is not public");
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http(s).request that resolves as dns.lookup does and refuses a name whose
 * addresses include a non-public one (all of them are checked: the connection may use any).
 */
export function publicOnlyLookup(hostname: string, options: LookupAllOptions | object, callback: LookupCallback): void {
  lookup(hostname, { ...(options as object), all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    if (addresses.length === 0 || addresses.some((a) => isNotPublic(a.address)))
      return callback(new NotPublicError(), []);
    if ((options as LookupAllOptions).all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}
