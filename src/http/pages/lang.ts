// GET {auth_url}/lang?lang=fr&return_to=/path — the language menu of every page: a plain link, so it
// works without JavaScript. Sets the `lang` cookie (a preference, a year) and goes back to
// return_to, a same-site path checked like every return_to (return-to.ts). An explicit choice
// beats the app's hint: `ui_locales` is taken out of the way back (docs/pages.md#languages).
import { isLocale } from "../../i18n/index.js";
import { ErrorPage } from "../../views/consent.js";
import { page, queryParam, type PagesDeps } from "./context.js";
import { safeReturnTo } from "./return-to.js";
import { sendPage } from "./send-page.js";
import { LANG_COOKIE, pageUi } from "./ui.js";

const YEAR_MS = 365 * 24 * 3600 * 1000;

/** The path without `ui_locales`, in its query or in the return_to it carries (a few levels deep). */
export function withoutUiLocales(path: string, depth = 0): string {
  const q = path.indexOf("?");
  if (q < 0 || depth > 3) return path;
  const params = new URLSearchParams(path.slice(q + 1));
  params.delete("ui_locales");
  const back = params.get("return_to");
  if (back !== null) params.set("return_to", withoutUiLocales(back, depth + 1));
  const query = params.toString();
  return query ? `${path.slice(0, q)}?${query}` : path.slice(0, q);
}

export function setLanguage(deps: PagesDeps) {
  return page(async (req, res) => {
    const lang = queryParam(req, "lang");
    if (!isLocale(lang)) {
      const ui = pageUi(req, deps.config);
      return sendPage(
        res,
        400,
        ErrorPage({ ui, title: ui.t("error.generic"), message: ui.t("error.unknownLanguage") }),
      );
    }
    const back = safeReturnTo(queryParam(req, "return_to"), deps.config.authUrl);
    res.cookie(LANG_COOKIE, lang, {
      path: "/",
      maxAge: YEAR_MS,
      sameSite: "lax",
      httpOnly: true,
      secure: deps.config.authUrl.startsWith("https:"),
    });
    res.redirect(303, safeReturnTo(withoutUiLocales(back), deps.config.authUrl));
  });
}
