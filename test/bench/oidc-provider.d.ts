// oidc-provider ships no types (the bench uses a handful of its calls, untyped).
declare module "oidc-provider";
