// English, part 6: upstream providers ("Continue with …", docs/upstream-providers.md): the
// buttons, the pages of a failed upstream sign-in, and /account's linked identities.
export const upstreams = {
  "err.upstreamExpired":
    "This sign-in was started too long ago, or was finished already. Start again from the sign-in page.",
  "err.upstreamUnreachable":
    "The other sign-in service cannot be reached now. Try again later, or sign in another way.",
  "err.upstreamRefused": "The other sign-in service did not sign you in. Try again, or sign in another way.",
  "err.upstreamInvalid":
    "The other sign-in service's answer could not be trusted, so nothing was done. Try again, or sign in another way.",
  "err.upstreamThrottled": "Too many sign-ins through another service begun from this address; try again later.",
  "err.upstreamUnknown": "This sign-in service is not offered here.",
  "err.upstreamTaken": "This identity is linked to another account already.",
  "err.upstreamLastWay":
    "This is the last way to sign in to your account: set a password or add a passkey before you unlink it.",
  "err.upstreamSignupClosed":
    "No account is linked to this identity, and new accounts cannot be made here now. Sign in to your account, then link it from your account page.",
  "upstream.continueWith": "Continue with {name}",
  "upstream.failedTitle": "Sign-in did not work",
  "account.upstreamsTitle": "Other sign-in services",
  "account.upstreamsNone": "No other service signs you in to this account.",
  "account.upstreamLink": "Add {name}",
  "account.upstreamUnlink": "Unlink",
  "account.upstreamOf": "{name}: {who}",
} as const;
