// The demo page (GET {base_url}/demo): the bundled client (/client.js) at work — create a
// challenge, share its key, solve it, and watch the results arrive live over the realtime channel
// (with a CUSTOM TOKEN the visitor pastes). It has the pages' frame, look and languages; its script
// (demo-script.ts) reads its words from a JSON block of the page, in the page's language. Nothing
// from a request is put into it: the script reads its input in the browser and writes with
// textContent only.
import { createHash } from "node:crypto";
import type { MessageKey } from "../i18n/index.js";
import { DEMO_SCRIPT } from "./demo-script.js";
import { Card, Page, type Ui } from "./layout.js";

/** The CSP source of the page's one inline script. */
export const DEMO_SCRIPT_SOURCE = `'sha256-${createHash("sha256").update(DEMO_SCRIPT).digest("base64")}'`;

/** The words the script shows, by the name it uses (T.connecting, …): read from its source, so the two cannot drift. */
const SCRIPT_WORDS = [...new Set([...DEMO_SCRIPT.matchAll(/\bT\.(\w+)/g)].map((m) => m[1]!))];

/** JSON that cannot end the script element it sits in (`<` escaped). */
const inScript = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

export function DemoPage(p: { ui: Ui }) {
  const { t, rich } = p.ui;
  const words = Object.fromEntries(SCRIPT_WORDS.map((w) => [w, t(`demo.${w}` as MessageKey)]));
  return (
    <Page ui={p.ui} title={t("demo.title")}>
      <p class="lead">{rich("demo.lead", { file: <code>client.js</code>, service: p.ui.service.name })}</p>

      <Card labelledBy="create-title" class="demo">
        <h2 id="create-title">{t("demo.createTitle")}</h2>
        <form id="create">
          <div class="field">
            <label for="question">{t("demo.question")}</label>
            <textarea id="question" required maxLength={2000} rows={2}>
              日本の首都は？
            </textarea>
          </div>
          <div class="field">
            <label for="answer">{t("demo.answer")}</label>
            <input id="answer" type="text" required value="東京" />
          </div>
          <div class="field">
            <label for="ttl">{t("demo.ttl")}</label>
            <input id="ttl" type="text" inputMode="numeric" placeholder="86400" />
          </div>
          <button type="submit">{t("demo.create")}</button>
        </form>
        <output id="created"></output>
        <output id="owner"></output>
        <p id="share-line" hidden>
          {t("demo.share")} <a id="share" href="#"></a>
        </p>
      </Card>

      <Card labelledBy="solve-title" class="demo">
        <h2 id="solve-title">{t("demo.solveTitle")}</h2>
        <form id="solve">
          <div class="field">
            <label for="key">{t("demo.key")}</label>
            <input id="key" type="text" required autoComplete="off" />
          </div>
          <p>
            <button type="button" id="load" class="secondary">
              {t("demo.load")}
            </button>
          </p>
          <output id="question-text"></output>
          <div class="field">
            <label for="attempt">{t("demo.attempt")}</label>
            <input id="attempt" type="text" required autoComplete="off" />
          </div>
          <button type="submit">{t("demo.solve")}</button>
        </form>
        <output id="result"></output>
      </Card>

      <Card labelledBy="live-title" class="demo">
        <h2 id="live-title">{t("demo.liveTitle")}</h2>
        <p>{rich("demo.liveText", { command: <code>npx sigil tokens create --app CLIENT_ID</code> })}</p>
        <form id="connect" autoComplete="off">
          <div class="field">
            <label for="token">{t("demo.token")}</label>
            <input id="token" type="password" required autoComplete="off" spellcheck={false} />
          </div>
          <div class="actions">
            <button type="submit">{t("demo.connect")}</button>
            <button type="button" id="disconnect" class="secondary" hidden>
              {t("demo.disconnect")}
            </button>
          </div>
        </form>
        <output id="live-status">{t("demo.notConnected")}</output>
        <ol id="live-results"></ol>
      </Card>

      <Card labelledBy="channels-title" class="demo">
        <h2 id="channels-title">{t("demo.channelsTitle")}</h2>
        <p>{rich("demo.channelsText", { command: <code>npx sigil tokens create --app CLIENT_ID --publish</code> })}</p>
        <form id="subscribe" autoComplete="off">
          <div class="field">
            <label for="channel">{t("demo.channel")}</label>
            <input id="channel" type="text" required maxLength={128} value="news" spellcheck={false} />
          </div>
          <button type="submit">{t("demo.subscribe")}</button>
        </form>
        <output id="channel-status">{t("demo.notSubscribed")}</output>
        <ol id="channel-messages"></ol>
        <form id="publish" autoComplete="off">
          <div class="field">
            <label for="message">{t("demo.message")}</label>
            <textarea id="message" required rows={2}>
              {'{"text": "こんにちは"}'}
            </textarea>
          </div>
          <button type="submit">{t("demo.publish")}</button>
        </form>
        <output id="published"></output>
      </Card>

      <script type="application/json" id="demo-text" dangerouslySetInnerHTML={{ __html: inScript(words) }} />
      <script src="client.js"></script>
      <script dangerouslySetInnerHTML={{ __html: DEMO_SCRIPT }} />
    </Page>
  );
}
