// The demo page's one inline script (see views/demo.tsx): challenges over HTTP, and live results
// over the realtime channel, all through the bundled client's global `Sigil`. It writes to the
// page with textContent only, in the page's language: its words come from the page's
// <script type="application/json" id="demo-text"> block (src/i18n, demo.*). The CUSTOM TOKEN a visitor pastes stays in this tab's
// sessionStorage (never in a URL), with the id of the last result shown, so that a reload
// resumes where the list stopped. Channels (section 4): one channel at a time on that connection,
// its messages listed as they arrive (the client subscribes again after a reconnect, from the
// last id shown), and POST /realtime/publish with the same token (in a header, never in a URL).
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
let live = null; // { conn, app, token } while connected (app once ready)
let channel = null; // { name, stop, acks } while subscribed on live.conn
function forget() {
  sessionStorage.removeItem(TOKEN);
  sessionStorage.removeItem(SINCE);
}
function stopLive() {
  const was = live;
  live = null;
  if (was) was.conn.close();
  $("disconnect").hidden = true;
  channel = null;
  show("channel-status", T.notSubscribed);
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
  const me = { conn, app: null, token };
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
  conn.on("subscribed", (e) => {
    const ch = channel;
    if (live !== me || !ch || ch.name !== e.channel) return;
    // Again after a reconnect: from the last message shown, when there is one.
    const again = ch.acks++ > 0 && conn.lastMessageId(ch.name) !== undefined;
    if (!again) show("channel-status", fill(T.subscribed, { channel: ch.name }));
    else if (e.recovered) show("channel-status", fill(T.channelResumed, { channel: ch.name }));
    else show("channel-status", fill(T.channelMayBeMissing, { channel: ch.name }), true);
  });
  conn.on("subscribe:error", (e) => {
    if (live !== me || !channel || channel.name !== e.channel) return;
    channel = null;
    show("channel-status", describe(e.error), true);
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

function addMessage(m) {
  const li = document.createElement("li");
  li.dataset.id = m.id;
  const when = document.createElement("time");
  when.dateTime = m.at;
  when.textContent = new Date(m.at).toLocaleTimeString();
  const data = document.createElement("code");
  data.textContent = typeof m.data === "string" ? m.data : JSON.stringify(m.data);
  li.append(when, " ", data);
  $("channel-messages").append(li);
}
$("subscribe").addEventListener("submit", (ev) => {
  ev.preventDefault();
  if (!live) return show("channel-status", T.connectFirst, true);
  const name = $("channel").value.trim();
  if (channel) channel.stop();
  $("channel-messages").replaceChildren();
  const ch = { name, stop: null, acks: 0 };
  channel = ch;
  show("channel-status", fill(T.subscribing, { channel: name }));
  ch.stop = live.conn.subscribe(name, (m) => {
    if (channel === ch) addMessage(m);
  });
});
$("publish").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  if (!live) return show("published", T.connectFirst, true);
  if (!channel) return show("published", T.subscribeFirst, true);
  const name = channel.name;
  const text = $("message").value;
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    data = text; // not JSON: sent as a string
  }
  try {
    const res = await fetch("realtime/publish", {
      method: "POST",
      credentials: "omit",
      headers: { authorization: "Bearer " + live.token, "content-type": "application/json" },
      body: JSON.stringify({ channel: name, data }),
    });
    const body = await res.json().catch(() => null);
    if (!res.ok) {
      const wait = Number(res.headers.get("retry-after") || NaN);
      throw Sigil.SigilError.fromObject(body, res.status, Number.isFinite(wait) ? wait : undefined);
    }
    show("published", fill(T.published, { channel: name, id: body.ids[0] }));
  } catch (err) {
    show("published", describe(err), true);
  }
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
