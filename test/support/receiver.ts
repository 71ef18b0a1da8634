// A small HTTP receiver for webhook and back-channel logout deliveries (node:http on port 0): it
// records every request and answers as told, one answer per request in turn (then 204).
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { waitFor } from "./wait.js";

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A status; or no answer for `hang` ms (then 204); or a 302 to `redirect`. */
export type Answer = number | { hang: number } | { redirect: string };

export class Receiver {
  readonly got: Received[] = [];
  /** The answers to the next requests, in turn; 204 when none is left. */
  readonly answers: Answer[] = [];
  private constructor(private readonly server: Server) {}

  static async start(): Promise<Receiver> {
    const server = createServer();
    const r = new Receiver(server);
    server.on("request", (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        r.got.push({
          path: req.url ?? "",
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
          at: Date.now(),
        });
        const answer = r.answers.shift() ?? 204;
        if (typeof answer === "number") return void res.writeHead(answer).end();
        if ("redirect" in answer) return void res.writeHead(302, { location: answer.redirect }).end();
        setTimeout(() => res.writeHead(204).end(), answer.hang).unref();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return r;
  }

  url(path = "/hook"): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** Resolves with what arrived once at least n requests did. */
  until(n: number, ms = 10_000): Promise<Received[]> {
    return waitFor(`${n} request(s) at the receiver`, () => (this.got.length >= n ? [...this.got] : undefined), {
      ms,
      everyMs: 5,
      seen: () => `${this.got.length} arrived: ${this.got.map((g) => g.path).join(", ")}`,
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
