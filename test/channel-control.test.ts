// Channel control (docs/realtime.md#limits-and-disconnections): a slow reader is dropped once its outbound queue passes the bound, and
// nothing secret reaches a log line.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { readyClient } from "./support/channel.js";
import { challengeApi, http } from "./support/http.js";

describeBackends("Realtime channel control", (backend) => {
  it("When a client stops reading, then it is disconnected once its queue passes CHANNEL_MAX_QUEUE", async () => {
    const node = await backend.startNode({ CHANNEL_MAX_QUEUE: "10" });
    const { token } = await node.server.customTokens.create({ app: "test-app" });
    // A raw engine.io long-polling client that connects and then never polls again.
    const q = "/socket.io/?EIO=4&transport=polling";
    const open = await http(node.url, q);
    const sid = JSON.parse(open.text.slice(1)).sid as string;
    await http(node.url, `${q}&sid=${sid}`, { method: "POST", body: `40${JSON.stringify({ token })}` });
    expect((await http(node.url, `${q}&sid=${sid}`)).text).to.match(/^40/);
    const api = challengeApi(node.url);
    const key = await api.createKey("q", "a", { authorization: `Bearer ${token}` });
    for (let i = 0; i < 15; i++) await api.solve(key, "a");
    // Until the node says the socket is gone (the drop follows the last delivery), at most 3 s.
    const sockets = async () => /^sigil_channel_sockets (\d+)$/m.exec((await http(node.url, "/metrics")).text)?.[1];
    for (const until = Date.now() + 3000; (await sockets()) !== "0" && Date.now() < until;)
      await new Promise((r) => setTimeout(r, 10));
    const poll = await http(node.url, `${q}&sid=${sid}`);
    expect(poll.status).to.equal(400);
    expect(poll.json).to.deep.equal({ code: 1, message: "Session ID unknown" });
  });

  it("When a reader keeps up, then the bound never bites", async () => {
    const node = await backend.startNode({ CHANNEL_MAX_QUEUE: "10" });
    const { token } = await node.server.customTokens.create({ app: "test-app" });
    const c = await readyClient(node.url, { token });
    const api = challengeApi(node.url);
    const key = await api.createKey("q", "a", { authorization: `Bearer ${token}` });
    for (let i = 0; i < 30; i++) await api.solve(key, "a");
    await c.waitEvents(30);
    expect(c.socket.connected).to.equal(true);
  });

  it("When tokens and answers travel the channel, then none appears in a log line", async () => {
    const node = await backend.startNode({ LOG_LEVEL: "trace" });
    const { token } = await node.server.customTokens.create({ app: "test-app" });
    const c = await readyClient(node.url, { token, viaHeader: true });
    const api = challengeApi(node.url);
    const key = await api.createKey("q", "s3cret-answer", { authorization: `Bearer ${token}` });
    await api.solve(key, "s3cret-answer");
    await api.create("q", "a", { authorization: `Bearer ${token}x` });
    await c.waitEvents(1);
    const all = node.logs.join("\n");
    expect(all).to.not.include(token);
    expect(all).to.not.include(token.split(".")[2]!);
    expect(all).to.not.include("s3cret-answer");
  });
});
