// The service raises its rules' messages in English (src/domain, src/http: the JSON API keeps them
// so). A page shows them in its own language: the English text is matched against the `err.*`
// templates of the English catalog, and the same key is read from the page's catalog, with the
// values the template captured. Each message also names the form field it is about, so the page
// can show it next to that field (aria-describedby). test/i18n.test.ts checks that every message
// the source raises has a template.
import { en, type MessageKey, type Messages } from "./messages/en.js";

/** The form field each message is about (the field's `name`), when it is about one. */
const FIELDS: Partial<Record<MessageKey, string>> = {
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
  "err.emailInvalid": "email",
  "err.wrongCode": "code",
};

interface Template {
  key: MessageKey;
  pattern: RegExp;
  names: string[];
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const TEMPLATES: Template[] = (Object.keys(en) as MessageKey[])
  .filter((k) => k.startsWith("err."))
  .map((key) => {
    const names: string[] = [];
    const source = en[key]
      .split(/(\{\w+\})/)
      .map((part) => {
        const m = /^\{(\w+)\}$/.exec(part);
        if (!m) return escape(part);
        names.push(m[1]!);
        return "([\\s\\S]*?)";
      })
      .join("");
    return { key, pattern: new RegExp(`^${source}$`), names };
  });

/** A message matched to its template: the key, its values, and the field it is about. */
export interface KnownMessage {
  key: MessageKey;
  params: Record<string, string>;
  field: string | undefined;
}

/** The template an English message came from, or undefined for a message no catalog knows. */
export function matchMessage(english: string): KnownMessage | undefined {
  for (const t of TEMPLATES) {
    const m = t.pattern.exec(english);
    if (!m) continue;
    const params: Record<string, string> = {};
    t.names.forEach((n, i) => (params[n] = m[i + 1] ?? ""));
    return { key: t.key, params, field: FIELDS[t.key] };
  }
  return undefined;
}

/** Fills `{name}` placeholders of a catalog string. */
export function fill(text: string, params: Readonly<Record<string, string | number>> = {}): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/** An English message in `messages`' language (unknown messages stay as they are), and its field. */
export function localizeMessage(messages: Messages, english: string): { text: string; field: string | undefined } {
  const known = matchMessage(english);
  if (!known) return { text: english, field: undefined };
  // A captured value may itself be a message ("Post-logout redirect URL: <a URL rule>"): translated too.
  const params = Object.fromEntries(
    Object.entries(known.params).map(([k, v]) => [k, matchMessage(v) ? localizeMessage(messages, v).text : v]),
  );
  return { text: fill(messages[known.key], params), field: known.field };
}
