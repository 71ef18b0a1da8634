// docs/settings.md KEEP_ALIVE_TIMEOUT: an idle keep-alive connection stays open longer than a load
// balancer's usual idle timeout (60 s), so that the balancer never reuses a connection the node is
// closing (which it would answer with a 502). Node's own default closes after 5 s.
import { connect, type Socket } from "node:net";
import { expect } from "chai";
import { describeBackends, oneBackend } from "./support/backends.js";

/** One GET /healthz on `socket` (kept alive); resolves when its whole response has arrived. */
function get(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    if (socket.readyState !== "open") {
      reject(new Error("the node had closed the connection"));
      return;
    }
    let got = "";
    const onData = (b: Buffer) => {
      got += b.toString("latin1");
      const head = got.indexOf("\r\n\r\n");
      const length = /content-length: (\d+)/i.exec(got);
      if (head >= 0 && length && got.length >= head + 4 + Number(length[1])) {
        socket.off("data", onData).off("close", onClose);
        resolve(got);
      }
    };
    const onClose = () => reject(new Error(`connection closed after ${JSON.stringify(got.slice(0, 80))}`));
    socket.on("data", onData).once("close", onClose);
    socket.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n");
  });
}

function open(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), hostname, () => resolve(s)).once("error", reject);
  });
}

describeBackends(
  "Keep-alive connections",
  (backend) => {
    it("When a connection has been idle 7 s (node closes them after about 5–6 s by default), then the next request on it is still answered", async function () {
      this.timeout(20_000);
      const node = await backend.startNode();
      const socket = await open(node.url);
      try {
        expect(await get(socket)).to.match(/^HTTP\/1\.1 200 /);
        await new Promise((r) => setTimeout(r, 7_000));
        expect(await get(socket)).to.match(/^HTTP\/1\.1 200 /);
      } finally {
        socket.destroy();
      }
    });

    it("When KEEP_ALIVE_TIMEOUT=1, then the node closes a connection idle for a second", async function () {
      this.timeout(20_000);
      const node = await backend.startNode({ KEEP_ALIVE_TIMEOUT: "1" });
      const socket = await open(node.url);
      expect(await get(socket)).to.match(/^HTTP\/1\.1 200 /);
      const started = Date.now();
      await new Promise((r) => socket.once("close", r));
      expect(Date.now() - started).to.be.within(500, 4_000);
    });
  },
  oneBackend("redis"),
);
