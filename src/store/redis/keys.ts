// Every Redis key Sigil uses, in one place. All keys start with the configured prefix. A key's
// hash tag ({...}) is the part Redis Cluster hashes: keys that one operation touches together
// share a tag, so that they live on one shard.

export function keyspace(prefix: string) {
  return {
    /** String: the data version, an integer (src/store/migrations.ts); absent before the first start. */
    dataVersion: `${prefix}:data-version`,
    /** String: the token of the node migrating the data (SET NX PX, renewed while it works). */
    migrationLock: `${prefix}:migration-lock`,
    /** String: the check of the SECRET the store was made with (an HMAC under it; store/start.ts). */
    secretCheck: `${prefix}:secret-check`,
    /**
     * String: the restore horizon, a time (ms, Redis's clock) — the newest `sigil restore`
     * (BackupPort markRestored); a resume from an id issued before it is never complete. Absent:
     * never restored. Its own hash slot: history reads GET it beside their script.
     */
    restoredAt: `${prefix}:restored-at`,
    /** String (JSON ChallengeRecord) with the challenge's TTL. */
    challenge: (key: string) => `${prefix}:ch:{${key}}`,
    /**
     * Solve state, decided by one script over keys of one hash tag: the challenge's key, or, for
     * an owned challenge, its app (the tag of the app's history, where the script appends the
     * event). Wrong-answer counters (fixed windows) per challenge and per (challenge, address).
     */
    wrongPerKey: (tag: string, key: string) => `${prefix}:sv:{${tag}}:${key}:n`,
    wrongPerAddress: (tag: string, key: string, address: string) => `${prefix}:sv:{${tag}}:${key}:a:${address}`,
    /** String: an owned challenge's answer hash, copied beside its app's history; the challenge's TTL. */
    ownedAnswer: (app: string, key: string) => `${prefix}:sv:{${app}}:${key}:h`,
    /** Prefix for a limiter's counters; the limiter appends ":<id>". */
    limiter: (name: string) => `${prefix}:rl:${name}`,
    /** Hash: CUSTOM TOKEN id → JSON record, one per app. */
    customTokens: (app: string) => `${prefix}:ct:{${app}}`,
    /** Stream: the app's solve events (history for replay). */
    events: (app: string) => `${prefix}:ev:{${app}}`,
    /** String: the newest event id trimmed from the app's history (replay is complete after it). */
    eventsCut: (app: string) => `${prefix}:ev:{${app}}:cut`,
    /** String: a lower bound of the time (ms) of the history's oldest entry (time trimming's shortcut). */
    eventsOldest: (app: string) => `${prefix}:ev:{${app}}:oldest`,
    /**
     * Stream: one channel's history of an app (fields d: the data as JSON text, t: the time). Its
     * cut and time bound are the same key with "|cut" and "|oldest" after it ("|" is never in a
     * channel's name), as eventsCut and eventsOldest are for the app's events; "|last" holds the
     * newest id issued. The stream expires HISTORY_TTL (and a second) after its last message; the
     * others twice HISTORY_TTL (and a second) after it, when the channel is forgotten (channelsAt).
     */
    channel: (app: string, channel: string) => `${prefix}:msg:{${app}}:${channel}`,
    /**
     * The base of an app's presence keys (store/redis/presence.ts): "|leases" (sorted set: node id →
     * when its lease ends), "|n:<node>" (hash: one node's counts) and ":<channel>" (hash: member →
     * connections over the live nodes) after it. None expires: each is deleted once empty.
     */
    presence: (app: string) => `${prefix}:pr:{${app}}`,
    /**
     * Set: the names of the app's channels that had a history, as stores before channels were
     * forgotten kept them (no longer added to; read with channelsAt to forget them with the app).
     */
    channelNames: (app: string) => `${prefix}:msg:{${app}}|channels`,
    /**
     * Sorted set: the app's channels with a history or its bookkeeping, each scored by the time
     * (ms) of its last message; a channel idle for twice HISTORY_TTL (and a second) is forgotten:
     * its keys expire, and its entry goes at the next publish.
     */
    channelsAt: (app: string) => `${prefix}:msg:{${app}}|channels-at`,
    /** String: the newest last-message time (ms) of the app's forgotten channels. */
    channelsForgotten: (app: string) => `${prefix}:msg:{${app}}|forgotten`,
    /** Stream: the audit log, every record (field r: the JSON record); trimmed by time (MINID). */
    audit: `${prefix}:audit`,
    /** Stream: copies of one user's audit records (with the log's id), for their list; expires with the last. */
    auditOf: (userId: string) => `${prefix}:audit-of:{${userId}}`,
    /** Pub/sub channel (not a key): new events and revocations, to every node. */
    feed: `${prefix}:feed`,
    /** String (JSON UserRecord). */
    user: (id: string) => `${prefix}:user:{${id}}`,
    /**
     * Sorted set (every score 0, so ordered by member): "<username>\0<user id>" of every user, the
     * index that pages users by name (AccountStore.list). One key; the id in the member means a
     * deletion removes exactly its own entry, never that of a new user of the same name.
     */
    usernameIndex: `${prefix}:{usernames}`,
    /**
     * Sorted set (score 0, lexical order): "<word>\0<username>\0<user id>" for every search word of
     * every user (store/user-search.ts), the index a user search reads (AccountStore.list with a
     * query). One key under one hash tag, so one shard on a Cluster (as usernameIndex): a query is
     * one ZRANGEBYLEX; at 100,000 users it holds about half a million short members.
     */
    userSearch: `${prefix}:{user-search}`,
    /** Sorted set (score 0, lexical order): every app's client id; AppStore.list walks it. */
    appIndex: `${prefix}:{apps}`,
    /** String: user id, by lower-cased username (SET NX makes usernames unique). */
    username: (name: string) => `${prefix}:username:{${name}}`,
    /** String (raw image bytes) of the user's uploaded picture. */
    picture: (id: string) => `${prefix}:picture:{${id}}`,
    /** String (express-session JSON) with the session's TTL. */
    session: (sid: string) => `${prefix}:sess:{${sid}}`,
    /**
     * Hash: sid → JSON SessionSummary, the user's signed-in sessions (the sessions list on
     * /account). Expires with the user's last session; entries of ended sessions are dropped on read.
     */
    userSessions: (userId: string) => `${prefix}:sessions-of:{${userId}}`,
    /** String (JSON AppRecord). */
    app: (clientId: string) => `${prefix}:app:{${clientId}}`,
    /**
     * Set of the public clients (client ids) with a redirect URL on this origin (corsOriginKey):
     * the CORS preflight of /token and /revoke asks whether it is empty.
     */
    publicOrigin: (origin: string) => `${prefix}:public-origin:{${origin}}`,
    /** Set of client ids an owner registered. */
    ownerApps: (ownerId: string) => `${prefix}:apps-of:{${ownerId}}`,
    /** Set of client ids a user consented to. */
    consents: (userId: string) => `${prefix}:consents:{${userId}}`,
    /**
     * Sorted set: the hashes of the codes issued under a user's consent to an app, scored by the
     * time (ms) after which neither the code nor a token from it can be alive. Shares its tag with
     * consents: "consent still there → register the code" and "withdraw → read the codes" are
     * each one atomic script.
     */
    grantCodes: (userId: string, clientId: string) => `${prefix}:grant-codes:{${userId}}:${clientId}`,
    /** String (JSON CodeRecord) with CODE_TTL; shares its tag with codeUsed (one Lua script). */
    code: (codeHash: string) => `${prefix}:code:{${codeHash}}`,
    /**
     * String "ok" | "revoked": the code was taken; "revoked" (a replay, or its consent withdrawn)
     * revokes the tokens issued from it, and the code itself when it was not taken yet.
     */
    codeUsed: (codeHash: string) => `${prefix}:code-used:{${codeHash}}`,
    /**
     * Hash of one refresh token: rec (JSON RefreshRecord), client, iat and until (ms), used ("0" | "1"),
     * until its grant ends. Tagged with its grant (the code's hash), like codeUsed: rotation,
     * reuse detection and the grant's revocation are one script.
     */
    refresh: (grantId: string, refreshHash: string) => `${prefix}:refresh:{${grantId}}:${refreshHash}`,
    /**
     * Set: the hashes of a grant's refresh tokens (its chain), until the grant ends. Tagged with
     * the grant, so that an app's deletion reads it and deletes the grant's keys in one script.
     */
    refreshChain: (grantId: string) => `${prefix}:refresh-chain:{${grantId}}`,
    /** String "<grant id> <grant end, ms>" of a refresh token, by the token's hash (the token names no grant). */
    refreshGrant: (refreshHash: string) => `${prefix}:refresh-grant:{${refreshHash}}`,
    /**
     * String (JSON TokenRecord) with the access token's TTL. Tagged with the client id it was
     * issued to, like the app's key: GET /auth/user reads both with one MGET.
     */
    token: (clientId: string, tokenHash: string) => `${prefix}:token:{${clientId}}:${tokenHash}`,
    /**
     * Sorted set: the keys of the access and refresh tokens issued to a user (token, refresh),
     * scored by when they end (ms), for account deletion; expires with the last of them.
     */
    userTokens: (userId: string) => `${prefix}:tokens-of:{${userId}}`,
    /**
     * Sorted set: the users an app issued records to (appUserGrants), each scored by when the last
     * of them ends (ms; +inf while there is a consent). Tagged with the client id, like the app: an
     * entry is added only while the app exists (one script), so that nothing is registered after
     * the app's deletion has read the set. Expires with its last entry.
     */
    appGrants: (clientId: string) => `${prefix}:grants-of:{${clientId}}`,
    /**
     * Sorted set: what the app was issued for one user, so that deleting the app deletes it at once:
     * "c" (the consent, its scopes and its codes' index), "k <code hash>" (a code and the grant it
     * began: its mark, its refresh chain), "t <token hash>" (an access token); scored by when the
     * record ends (ms; +inf for the consent). Same tag as appGrants; dropped with the user too.
     */
    appUserGrants: (clientId: string, userId: string) => `${prefix}:grants-of:{${clientId}}:${userId}`,
    /** Set: the client ids whose appGrants name the user (the user's deletion drops those entries). */
    appsUsed: (userId: string) => `${prefix}:apps-used:{${userId}}`,
    /** Hash: kid → JSON SigningKeyRecord, the OpenID Connect signing keys of every node. */
    signingKeys: `${prefix}:{signing-keys}`,
    /** String with a TTL: a node is making the first signing key (the others wait for it); same tag. */
    signingKeysClaim: `${prefix}:{signing-keys}:claim`,
    /** Hash: client id → the space-separated scopes the user granted it; tagged with the user's consents. */
    consentScopes: (userId: string) => `${prefix}:consent-scopes:{${userId}}`,
    /** String (JSON MailLinkRecord) with the link's TTL, by the hash of its token; GETDEL takes it. */
    mailLink: (tokenHash: string) => `${prefix}:mail-link:{${tokenHash}}`,
    /**
     * Sorted set: the token hashes of a user's mail links, scored by when each ends (ms), for
     * account deletion; expires with the last of them.
     */
    mailLinksOf: (userId: string) => `${prefix}:mail-links-of:{${userId}}`,
    /** Set of the ids of the users who gave this (normalised) email address. */
    emailUsers: (email: string) => `${prefix}:email:{${email}}`,
    /** Hash: credential id → JSON PasskeyRecord, a user's passkeys (tagged with the user). */
    passkeys: (userId: string) => `${prefix}:passkeys:{${userId}}`,
    /** String: the user id owning a passkey, by credential id (SET NX keeps credential ids unique). */
    passkeyOwner: (credentialId: string) => `${prefix}:passkey-owner:{${credentialId}}`,
    /** Hash: identity ("issuer sub") → JSON UpstreamLinkRecord, a user's upstream links (tagged with the user). */
    upstreamLinks: (userId: string) => `${prefix}:upstream-links:{${userId}}`,
    /** String: the user id an upstream identity is linked to (SET NX: one account per identity). */
    upstreamOwner: (identity: string) => `${prefix}:upstream-owner:{${identity}}`,
    /** String (JSON ceremony state) with a ~5 min TTL, by WebAuthn challenge; taken with GETDEL. */
    webauthnChallenge: (challenge: string) => `${prefix}:webauthn:{${challenge}}`,
    /** String (JSON TwoFactorRecord, the TOTP secret sealed): the user's two-factor; tagged with the user. */
    twoFactor: (userId: string) => `${prefix}:2fa:{${userId}}`,
    /** Set: the keyed hashes of the user's unused recovery codes (SREM uses one once). */
    twoFactorRecovery: (userId: string) => `${prefix}:2fa:{${userId}}:recovery`,
    /** Sorted set: the TOTP time steps used (member), scored by when the mark ends (ms); no replay. */
    twoFactorSteps: (userId: string) => `${prefix}:2fa:{${userId}}:steps`,
    /**
     * Hash of one device authorization request (RFC 8628): r (JSON DeviceCodeRecord), c (its client id), uc (its user code's hash), e (until
     * when, ms), s (pending | approved | denied | taken), a (JSON approval), i (interval, s), p
     * (last poll, ms); kept a while past e. Every poll and decision is one script on it.
     */
    deviceRequest: (deviceHash: string) => `${prefix}:device:{${deviceHash}}`,
    /** String: a user code's hash → its device code's hash, until the request expires or is decided. */
    deviceUserCode: (userCodeHash: string) => `${prefix}:device-user:{${userCodeHash}}`,
    /** Sets of device code hashes: requests a user approved that no poll took yet; every request of an app. */
    devicesApprovedBy: (userId: string) => `${prefix}:device-by-user:{${userId}}`,
    devicesOfApp: (clientId: string) => `${prefix}:device-by-app:{${clientId}}`,
    /**
     * Groups: every key under one hash tag, so that each change (a group deleted with its
     * memberships, a member added to both sides) is one script on one shard; groups are few and
     * small. Hash: name → JSON GroupRecord.
     */
    groups: `${prefix}:{groups}`,
    /** Set: the ids of a group's members (same tag). */
    groupMembers: (name: string) => `${prefix}:{groups}:members:${name}`,
    /** Set: the names of the groups a user is in (same tag): the `groups` claim, one SMEMBERS. */
    userGroups: (userId: string) => `${prefix}:{groups}:of:${userId}`,
    /** Hash: upstream provider id → JSON StoredUpstreamRecord (added on /admin); one key, one shard. */
    upstreams: `${prefix}:{upstreams}`,
    /** Hash: invitation id → JSON InvitationRecord; one hash tag with its index (one script takes one). */
    invitations: `${prefix}:{invitations}`,
    /** Hash: the keyed hash of an invitation's token → its id (same tag). */
    invitationTokens: `${prefix}:{invitations}:tokens`,
    /** Hash: delivery id → JSON Delivery (webhooks, back-channel logout); one tag with its schedule. */
    deliveries: `${prefix}:{deliveries}`,
    /** Sorted set: delivery ids by when they are due (ms); a take leases by moving them on (same tag). */
    deliveriesDue: `${prefix}:{deliveries}:due`,
    /** List: an app's last delivery attempts (JSON DeliveryAttempt), newest first. */
    deliveryLog: (app: string) => `${prefix}:dlog:{${app}}`,
  };
}

export type Keyspace = ReturnType<typeof keyspace>;
