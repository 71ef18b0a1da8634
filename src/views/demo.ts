// The demo page (GET /demo): static HTML that uses the bundled client (/client.js) to create a
// challenge, share its key and solve it. Nothing from a request is ever put into this HTML:
// the page reads its input in the browser and writes results with textContent only.
import { createHash } from "node:crypto";

const STYLE = `
body { font: 16px/1.5 system-ui, sans-serif; max-width: 42rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
section { border: 1px solid #ccc; border-radius: 8px; padding: 1rem; margin: 1rem 0; }
label { display: block; margin: .5rem 0 .2rem; }
input, textarea { width: 100%; box-sizing: border-box; font: inherit; padding: .3rem; }
button { margin-top: .6rem; font: inherit; }
output { display: block; margin-top: .6rem; white-space: pre-wrap; overflow-wrap: anywhere; }
.error { color: #a00; }
`;

const SCRIPT = `
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
$("create").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  try {
    const ttl = $("ttl").value.trim();
    const { key } = await sigil.challenges.create({
      question: $("question").value,
      answer: $("answer").value,
      ...(ttl ? { ttl: Number(ttl) } : {}),
    });
    show("created", "Key: " + key);
    const link = new URL("#key=" + key, location.href).href;
    $("share").textContent = link;
    $("share").href = link;
    $("key").value = key;
  } catch (err) {
    show("created", describe(err), true);
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
`;

const sha256 = (s: string) => `'sha256-${createHash("sha256").update(s).digest("base64")}'`;

/** Content-Security-Policy of the page: only its own inline script and style, and /client.js. */
export const DEMO_CSP = [
  "default-src 'none'",
  `script-src 'self' ${sha256(SCRIPT)}`,
  `style-src ${sha256(STYLE)}`,
  // The realtime channel (Socket.IO) will connect here too: 'self' covers ws(s) to this host.
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

export const DEMO_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sigil demo: challenges</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Sigil demo: challenges</h1>
<p>This page uses the bundled client, <code>client.js</code>, served by this Sigil service.</p>

<section>
<h2>1. Create a challenge</h2>
<form id="create">
<label for="question">Question (any language)</label>
<textarea id="question" required maxlength="2000" rows="2">日本の首都は？</textarea>
<label for="answer">Answer</label>
<input id="answer" required value="東京">
<label for="ttl">Expires after (seconds, optional, 60 to 2592000)</label>
<input id="ttl" inputmode="numeric" placeholder="86400">
<button type="submit">Create</button>
</form>
<output id="created"></output>
<p>Share: <a id="share" href="#"></a></p>
</section>

<section>
<h2>2. Solve it</h2>
<form id="solve">
<label for="key">Key</label>
<input id="key" required autocomplete="off">
<button type="button" id="load">Show the question</button>
<output id="question-text"></output>
<label for="attempt">Your answer</label>
<input id="attempt" required autocomplete="off">
<button type="submit">Solve</button>
</form>
<output id="result"></output>
</section>

<!-- LIVE RESULTS: once the realtime channel (CONTRACT §6) is available, this section asks for a
     CUSTOM TOKEN, creates challenges with it, and lists every solve attempt as it arrives
     (sigil.connect({token}).on("challenge:result", …)). Until then it only says so. -->
<section id="live">
<h2>3. Live results</h2>
<p id="live-status">Live results will appear here once the realtime channel is available on this service.</p>
<ol id="live-results"></ol>
</section>

<script src="client.js"></script>
<script>${SCRIPT}</script>
</body>
</html>
`;
