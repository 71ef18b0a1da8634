// @sigil/client — sign-in helpers, challenges and the realtime channel of a Sigil service.
// The browser bundle (/client.js) exposes exactly these exports as the global `Sigil`.
export { createClient, type ClientOptions, type SigilClient } from "./client.js";
export { SigilError, type SigilErrorCode } from "./errors.js";
export { challengeApi, fitsInHeader, type ChallengeApi, type CreateChallengeInput } from "./challenges.js";
export {
  signInApi,
  type AuthorizeInput,
  type AuthorizeRequest,
  type ExchangeCodeInput,
  type RefreshInput,
  type RevokeInput,
  type SignInApi,
  type SignInOptions,
} from "./signin.js";
export type { BeginInput, CompleteInput, SignInStorage } from "./browser-signin.js";
export { challengeFromVerifier, generateState, generateVerifier } from "./pkce.js";
export {
  connectRealtime,
  RealtimeConnection,
  type MessageHandler,
  type PresenceList,
  type RealtimeEvents,
  type RealtimeOptions,
  type SubscribeOptions,
} from "./realtime.js";
export { compareEventIds } from "./event-ids.js";
export type { Fetch, HttpOptions } from "./http.js";
export type {
  ChallengeResultEvent,
  EndedEvent,
  ErrorObject,
  MessageEvent,
  NewChallengePayload,
  NewChallengeResponse,
  PresenceEvent,
  PresenceMember,
  PresenceResponse,
  ReadyEvent,
  SolvePayload,
  SolveResponse,
  SubscribeResponse,
  TokenResponse,
  UserInfo,
} from "../../src/protocol.js";
