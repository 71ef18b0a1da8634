// Bench only (module audit): loaded with --import before src/main.ts, it makes the audit writer's
// store append a no-op on both stores, so a node does everything else the same (the audit
// records are still made and queued by domain/audit.ts; only the store's write is skipped).
// The baseline of "the audit log's cost"; no setting changes.
import { EmbeddedAudit } from "../../../src/store/embedded/audit.js";
import { RedisAudit } from "../../../src/store/redis/audit.js";

EmbeddedAudit.prototype.append = () => Promise.resolve();
RedisAudit.prototype.append = () => Promise.resolve();
