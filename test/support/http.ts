// A small HTTP client for tests on node:http, so that header values can carry raw UTF-8 bytes
// exactly as a non-browser client sends them.
import { request } from "node:http";

export interface TestResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

/** A header value that puts the UTF-8 bytes of s on the wire (node:http writes latin1). */
export function utf8Header(s: string): string {
  return Buffer.from(s, "utf8").toString("latin1");
}

export function http(
  base: string,
  path: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer; localAddress?: string } = {},
): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { method: opts.method ?? "GET", headers: opts.headers, agent: false, ...(opts.localAddress ? { localAddress: opts.localAddress } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(opts.body);
  });
}

/** Shorthands for the challenge API. */
export function challengeApi(base: string) {
  return {
    create: (question: string, answer: string, extra: Record<string, string> = {}) =>
      http(base, "/challenge/new", {
        method: "POST",
        headers: { question: utf8Header(question), answer: utf8Header(answer), ...extra },
      }),
    async createKey(question: string, answer: string, extra: Record<string, string> = {}): Promise<string> {
      const r = await this.create(question, answer, extra);
      if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.text}`);
      return r.json.key as string;
    },
    question: (key: string) => http(base, "/challenge/q", { headers: { key } }),
    solve: (key: string, a: string, extra: Record<string, string> = {}) =>
      http(base, "/challenge/solve", {
        method: "POST",
        headers: { "content-type": "application/json", key, a: utf8Header(a), ...extra },
      }),
  };
}
