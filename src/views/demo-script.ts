// The demo page's one inline script (see views/demo.ts): challenges over HTTP, and live results
// over the realtime channel, all through the bundled client's global `Sigil`. It writes to the
// page with textContent only. The CUSTOM TOKEN a visitor pastes stays in this tab's
// sessionStorage (never in a URL), with the id of the last result shown, so that a reload
// resumes where the list stopped.
export const DEMO_SCRIPT = `
"use strict";
const sigil = Sigil.createClient();
const $ = (id) => document.getElementById(id);
function show(id, text, isError) {
  const el = $(id);
  el.textContent = text;
  el.className = isError ? "error" : "";
}
function describe(err) {
  if (err instanceof Sigil.SigilError) {
    return err.description + " (" + err.code + (err.retryAfter !== undefined ? ", retry in " + err.retryAfter + " s" : "") + ")";
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
  verdict.textContent = e.correct ? "correct" : "wrong";
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
  show("live-status", "Connecting…");
  $("disconnect").hidden = false;
  conn.on("ready", (e) => {
    me.app = e.app;
    const resumed = readies++ > 0 || since !== undefined;
    const head = "Connected to app " + e.app + ". ";
    if (e.recovered) show("live-status", head + "Resumed: no result was missed.");
    else if (resumed) show("live-status", head + "Some results may be missing: the service no longer holds all of them since the last one shown.", true);
    else show("live-status", head + "Results of its challenges appear below as they arrive.");
  });
  conn.on("challenge:result", (e) => {
    addResult(e);
    sessionStorage.setItem(SINCE, e.id);
  });
  conn.on("disconnect", (reason) => {
    if (live === me) show("live-status", "Connection lost (" + reason + "); reconnecting…", true);
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
  show("live-status", "Disconnected; the token is forgotten.");
});

$("create").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  try {
    const ttl = $("ttl").value.trim();
    const input = { question: $("question").value, answer: $("answer").value, ...(ttl ? { ttl: Number(ttl) } : {}) };
    const owner = live && live.app;
    const { key } = owner ? await live.conn.createChallenge(input) : await sigil.challenges.create(input);
    show("created", "Key: " + key);
    show("owner", owner
      ? "It belongs to app " + owner + ": every attempt on it appears under Live results."
      : "Anonymous: connect with a CUSTOM TOKEN (section 3) before creating to watch its attempts live.");
    const link = new URL("#key=" + key, location.href).href;
    $("share").textContent = link;
    $("share").href = link;
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
    show("result", correct ? "Correct!" : "Not correct; try again.");
  } catch (err) {
    show("result", describe(err), true);
  }
});

const shared = new URLSearchParams(location.hash.slice(1)).get("key");
if (shared) { $("key").value = shared; $("load").click(); }
const saved = sessionStorage.getItem(TOKEN);
if (saved) startLive(saved);
`;
