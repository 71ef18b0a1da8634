// The demo page's one inline script (see views/demo.tsx): challenges over HTTP, and live results
// over the realtime channel, all through the bundled client's global `Sigil`. It writes to the
// page with textContent only, in the page's language: its words come from the page's
// <script type="application/json" id="demo-text"> block (src/i18n, demo.*). The CUSTOM TOKEN a visitor pastes stays in this tab's
// sessionStorage (never in a URL), with the id of the last result shown, so that a reload
// resumes where the list stopped.
export const DEMO_SCRIPT = `
"use strict";
const sigil = Sigil.createClient();
const $ = (id) => document.getElementById(id);
const T = JSON.parse($("demo-text").textContent);
const fill = (text, params) => Object.keys(params).reduce((t, name) => t.split("{" + name + "}").join(String(params[name])), text);
function show(id, text, isError) {
  const el = $(id);
  el.textContent = text;
  el.className = isError ? "error" : "";
}
function describe(err) {
  if (err instanceof Sigil.SigilError) {
    return err.description + " (" + err.code + (err.retryAfter !== undefined ? ", " + fill(T.retryIn, { seconds: err.retryAfter }) : "") + ")";
  }
  return String(err);
}

// Live results: a realtime connection with the visitor's CUSTOM TOKEN.
const TOKEN = "sigil-demo-token";
const SINCE = "sigil-demo-since";
let live = null; // { conn, app } while connected (app once ready)
function forget() {
  sessionStorage.removeItem(TOKEN);
  sessionStorage.removeItem(SINCE);
}
function stopLive() {
  const was = live;
  live = null;
  if (was) was.conn.close();
  $("disconnect").hidden = true;
}
function addResult(e) {
  const li = document.createElement("li");
  li.dataset.id = e.id;
  li.className = e.correct ? "correct" : "wrong";
  const when = document.createElement("time");
  when.dateTime = e.at;
  when.textContent = new Date(e.at).toLocaleTimeString();
  const key = document.createElement("code");
  key.textContent = e.key;
  const verdict = document.createElement("strong");
  verdict.textContent = e.correct ? T.verdictCorrect : T.verdictWrong;
  li.append(when, " ", key, " ", verdict);
  $("live-results").append(li);
}
function startLive(token) {
  stopLive();
  const since = sessionStorage.getItem(SINCE) || undefined;
  const conn = sigil.connect({ token, ...(since ? { since } : {}) });
  const me = { conn, app: null };
  live = me;
  let readies = 0;
  show("live-status", T.connecting);
  $("disconnect").hidden = false;
  conn.on("ready", (e) => {
    me.app = e.app;
    const resumed = readies++ > 0 || since !== undefined;
    const head = fill(T.connected, { app: e.app }) + " ";
    if (e.recovered) show("live-status", head + T.resumed);
    else if (resumed) show("live-status", head + T.mayBeMissing, true);
    else show("live-status", head + T.appearBelow);
  });
  conn.on("challenge:result", (e) => {
    addResult(e);
    sessionStorage.setItem(SINCE, e.id);
  });
  conn.on("disconnect", (reason) => {
    if (live === me) show("live-status", fill(T.lost, { reason }), true);
  });
  conn.on("error", (err) => {
    if (live !== me) return;
    stopLive();
    forget();
    show("live-status", describe(err), true);
  });
}
$("connect").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const token = $("token").value.trim();
  $("token").value = "";
  if (token !== sessionStorage.getItem(TOKEN)) {
    forget();
    $("live-results").replaceChildren();
  }
  sessionStorage.setItem(TOKEN, token);
  startLive(token);
});
$("disconnect").addEventListener("click", () => {
  stopLive();
  forget();
  show("live-status", T.disconnected);
});

$("create").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  try {
    const ttl = $("ttl").value.trim();
    const input = { question: $("question").value, answer: $("answer").value, ...(ttl ? { ttl: Number(ttl) } : {}) };
    const owner = live && live.app;
    const { key } = owner ? await live.conn.createChallenge(input) : await sigil.challenges.create(input);
    show("created", fill(T.keyIs, { key }));
    show("owner", owner ? fill(T.owned, { app: owner }) : T.anonymous);
    const link = new URL("#key=" + key, location.href).href;
    $("share").textContent = link;
    $("share").href = link;
    $("share-line").hidden = false;
    $("key").value = key;
  } catch (err) {
    show("created", describe(err), true);
    show("owner", "");
  }
});
$("load").addEventListener("click", async () => {
  try {
    show("question-text", await sigil.challenges.question($("key").value.trim()));
  } catch (err) {
    show("question-text", describe(err), true);
  }
});
$("solve").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  try {
    const { correct } = await sigil.challenges.solve($("key").value.trim(), $("attempt").value);
    show("result", correct ? T.correct : T.notCorrect);
  } catch (err) {
    show("result", describe(err), true);
  }
});

const shared = new URLSearchParams(location.hash.slice(1)).get("key");
if (shared) { $("key").value = shared; $("load").click(); }
const saved = sessionStorage.getItem(TOKEN);
if (saved) startLive(saved);
`;
