// A small HTTP client for tests on node:http, so that header values can carry raw UTF-8 bytes
// exactly as a non-browser client sends them.
import { request, type IncomingMessage, type RequestOptions } from "node:http";

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

export interface HttpOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Send from this local address (per-address limits treat it as another client). */
  localAddress?: string;
  /** Put the path on the wire exactly as given, with no URL resolution ("//x" stays a path; fuzzing). */
  rawPath?: boolean;
  /** Fail with "no answer within …" when the socket is idle this long (fuzzing: a hang is a finding). */
  timeoutMs?: number;
}

export function http(base: string, path: string, opts: HttpOptions = {}): Promise<TestResponse> {
  const options: RequestOptions = {
    method: opts.method ?? "GET",
    headers: opts.headers,
    agent: false,
    ...(opts.localAddress ? { localAddress: opts.localAddress } : {}),
    ...(opts.timeoutMs ? { timeout: opts.timeoutMs } : {}),
  };
  return new Promise((resolve, reject) => {
    const onResponse = (res: IncomingMessage) => {
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
    };
    const { hostname, port } = new URL(base);
    const req = opts.rawPath
      ? request({ ...options, host: hostname, port, path }, onResponse)
      : request(new URL(path, base), options, onResponse);
    if (opts.timeoutMs) req.on("timeout", () => req.destroy(new Error(`no answer within ${opts.timeoutMs! / 1000} s`)));
    req.on("error", reject);
    // As a Buffer: a string body would be written with the headers in UTF-8, re-encoding their latin1 bytes.
    req.end(typeof opts.body === "string" ? Buffer.from(opts.body) : opts.body);
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
