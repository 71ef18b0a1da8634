// The demo page (GET /demo): static HTML that uses the bundled client (/client.js) to create a
// challenge, share its key, solve it, and watch the results arrive live over the realtime
// channel (with a CUSTOM TOKEN the visitor pastes). Nothing from a request is ever put into this
// HTML: the page reads its input in the browser and writes results with textContent only.
import { createHash } from "node:crypto";
import { DEMO_SCRIPT } from "./demo-script.js";

const STYLE = `
body { font: 16px/1.5 system-ui, sans-serif; max-width: 42rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
section { border: 1px solid #ccc; border-radius: 8px; padding: 1rem; margin: 1rem 0; }
label { display: block; margin: .5rem 0 .2rem; }
input, textarea { width: 100%; box-sizing: border-box; font: inherit; padding: .3rem; }
button { margin-top: .6rem; font: inherit; }
output { display: block; margin-top: .6rem; white-space: pre-wrap; overflow-wrap: anywhere; }
.error { color: #a00; }
#live-results li.correct strong { color: #070; }
#live-results li.wrong strong { color: #a00; }
`;

const sha256 = (s: string) => `'sha256-${createHash("sha256").update(s).digest("base64")}'`;

/** Content-Security-Policy of the page: only its own inline script and style, and /client.js. */
export const DEMO_CSP = [
  "default-src 'none'",
  `script-src 'self' ${sha256(DEMO_SCRIPT)}`,
  `style-src ${sha256(STYLE)}`,
  // The realtime channel (Socket.IO, polling then WebSocket): 'self' covers ws(s) to this host.
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
<title>Sigil demo: challenges, live</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Sigil demo: challenges, live</h1>
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
<output id="owner"></output>
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

<section id="live">
<h2>3. Live results</h2>
<p>Paste a CUSTOM TOKEN of your app (<code>npx sigil tokens create --app CLIENT_ID</code>).
It stays in this browser tab only, never in a URL. Challenges you then create belong to the app, and every
attempt on them is listed here as it happens, from any device, without reloading.</p>
<form id="connect" autocomplete="off">
<label for="token">CUSTOM TOKEN</label>
<input id="token" type="password" required autocomplete="off" spellcheck="false">
<button type="submit">Connect</button>
<button type="button" id="disconnect" hidden>Disconnect and forget the token</button>
</form>
<output id="live-status">Not connected.</output>
<ol id="live-results"></ol>
</section>

<script src="client.js"></script>
<script>${DEMO_SCRIPT}</script>
</body>
</html>
`;
