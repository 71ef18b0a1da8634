// What an error says, as data: the id of an `err.*` entry of the catalogs and the values of its
// `{name}` placeholders (docs/errors.md#messages). The English catalog is typed `as const`, so an
// id that is not one of its keys, or a missing placeholder value, is a compile error. The JSON
// API's `error_description` is this message rendered from the English catalog; a page or a mail
// renders the same id from its own language's catalog, and each message names the form field it
// is about, so the page can show it next to that field (aria-describedby).
import { en, type Messages } from "./messages/en/index.js";

/** The `{name}` placeholders of a catalog string, as a union of names. */
type Placeholders<S extends string> = S extends `${string}{${infer P}}${infer Rest}` ? P | Placeholders<Rest> : never;

/** Every error message the service can raise: the `err.*` keys of the catalogs. */
export type ErrorId = Extract<keyof typeof en, `err.${string}`>;

/** A placeholder's value: text, a number (formatted for the language), or a message itself. */
export type Param = string | number | MessageRef;

/** The values a message needs: one per placeholder of its English text (none: an empty object). */
export type ParamsOf<K extends ErrorId> = [Placeholders<(typeof en)[K]>] extends [never]
  ? Readonly<Record<string, never>>
  : { readonly [P in Placeholders<(typeof en)[K]>]: Param };

/** A helper's arguments after the id: the values, optional when the message has no placeholder. */
export type ParamArgs<K extends ErrorId> = [Placeholders<(typeof en)[K]>] extends [never]
  ? [params?: ParamsOf<K>]
  : [params: ParamsOf<K>];

/** The messages without a placeholder: an id alone says all of them. */
export type PlainErrorId = { [K in ErrorId]: [Placeholders<(typeof en)[K]>] extends [never] ? K : never }[ErrorId];

/** A message as data: its id and its values. A SigilError is one. */
export interface MessageRef {
  readonly id: ErrorId;
  readonly params: Readonly<Record<string, Param>>;
}

/** A message of the catalogs, checked by the compiler: message("err.notAbsolute", { url }). */
export function message<K extends ErrorId>(id: K, ...[params]: ParamArgs<K>): MessageRef {
  return { id, params: params ?? {} };
}

/** A message given by its id alone (no placeholder) or as data: always as data. */
export const toRef = (m: PlainErrorId | MessageRef): MessageRef => (typeof m === "string" ? { id: m, params: {} } : m);

/** Fills `{name}` placeholders of a catalog string. */
export function fill(text: string, params: Readonly<Record<string, string | number>> = {}): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/**
 * A message in one catalog's language: its entry, placeholders filled, a value that is a message
 * rendered in the same language, numbers through `number` (String for the JSON API).
 */
export function renderMessage(
  catalog: Messages,
  ref: MessageRef,
  number: (n: number) => string = String,
  depth = 0,
): string {
  const values: Record<string, string> = {};
  for (const [name, v] of Object.entries(ref.params)) {
    values[name] =
      typeof v === "number"
        ? number(v)
        : typeof v === "string"
          ? v
          : depth < 3
            ? renderMessage(catalog, v, number, depth + 1)
            : "";
  }
  return fill(catalog[ref.id], values);
}

/** A message in English: the JSON API's `error_description`, the CLI's and the log's text. */
export const english = (ref: MessageRef): string => renderMessage(en, ref);

/** The form field each message is about (the field's `name`), when it is about one. */
export const FIELDS: Partial<Record<ErrorId, string>> = {
  "err.username": "username",
  "err.taken": "username",
  "err.displayName": "display_name",
  "err.displayNameControl": "display_name",
  "err.password": "password",
  "err.wrongPassword": "password",
  "err.pictureType": "picture",
  "err.pictureUnreadable": "picture",
  "err.pictureTooLarge": "picture",
  "err.pictureBytes": "picture",
  "err.uploadUnreadable": "picture",
  "err.uploadEncoding": "picture",
  "err.appName": "name",
  "err.passkeyName": "name",
  "err.noRedirect": "redirect_uri",
  "err.tooManyRedirects": "redirect_uri",
  "err.notAbsolute": "redirect_uri",
  "err.redirectLength": "redirect_uri",
  "err.redirectFragment": "redirect_uri",
  "err.redirectUserinfo": "redirect_uri",
  "err.redirectScheme": "redirect_uri",
  "err.homepage": "homepage",
  "err.tooManyPostLogout": "post_logout_redirect_uri",
  "err.postLogoutProblem": "post_logout_redirect_uri",
  "err.webhookUrlProblem": "webhook_url",
  "err.backchannelLogoutProblem": "backchannel_logout_uri",
  "err.webhookChannels": "webhook_channels",
  "err.emailInvalid": "email",
  "err.invitationEmail": "email",
  "err.emailDomain": "email",
  "err.wrongCode": "code",
};
