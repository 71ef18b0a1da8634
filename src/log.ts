// JSON-lines logging (pino). Nothing secret is ever passed to a log call; the redaction list is a
// second line of defence for fields that could carry one by mistake.
import { pino, symbols, type DestinationStream, type Logger } from "pino";
import sonicBoom from "sonic-boom";
import { isoTime } from "./iso-time.js";

export type { Logger };

export const REDACTED_PATHS = [
  "*.authorization",
  "*.password",
  "*.client_secret",
  "*.code",
  "*.code_verifier",
  "*.token",
  "*.access_token",
  "*.answer",
  "*.a",
  "*.cookie",
  "headers",
];

/** The fields of every line. */
const BASE = { service: "sigil" };

const lineFormat = (level: string) => ({
  level,
  base: BASE,
  // pino.stdTimeFunctions.isoTime's format, formatted once per millisecond (iso-time.ts).
  timestamp: () => `,"time":"${isoTime()}"`,
  formatters: { level: (label: string) => ({ level: label }) },
});

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ ...lineFormat(level), redact: { paths: REDACTED_PATHS, censor: "[redacted]" } }, destination);
}

/** The fields of an access log line, and nothing else: none of them can carry a secret. */
export interface AccessLine {
  reqId: string;
  method: string;
  /** Without the query string (it can carry codes and state). */
  path: string;
  status: number;
  ms: number;
}

/**
 * The access log: one line per request, written to `logger`'s sink in its format (the line pino
 * writes for these fields: level, time, the base fields, the fields, msg) and at its level, but
 * neither through the redaction pass nor through pino's generic serializer. Its lines are made only
 * of AccessLine's fields, which name no secret; redaction (which looks at every field of every line
 * for the names above) was 8 of the 10 µs an access line cost, and pino's serializer (a level
 * object per line, each field looked up for a serializer) 1.5 of the 2 left.
 * test/log-line.test.ts compares this line with pino's for the same fields.
 */
export function accessLog(logger: Logger): (line: AccessLine) => void {
  const stream = (logger as unknown as { [symbols.streamSym]: DestinationStream })[symbols.streamSym];
  if (!logger.isLevelEnabled("info")) return () => {};
  const head = `{"level":"info","time":"`;
  const base = `",${JSON.stringify(BASE).slice(1, -1)},"reqId":`;
  return (line) =>
    stream.write(
      `${head}${isoTime()}${base}${JSON.stringify(line.reqId)},"method":${JSON.stringify(line.method)},"path":${JSON.stringify(line.path)},"status":${line.status},"ms":${line.ms},${ACCESS_LINE_END}`,
    );
}

/** Log bytes held while stdout is not taken; beyond them new lines are dropped, not queued. */
const MAX_PENDING_BYTES = 8 * 1024 * 1024;

/** The message of the access log line (http/middleware/context.ts), one per request. */
export const ACCESS_LOG_MSG = "request";
const ACCESS_LINE_END = `"msg":${JSON.stringify(ACCESS_LOG_MSG)}}\n`;

/**
 * Access log lines are written in batches of at least this many bytes, or after FLUSH_MS,
 * whichever comes first: a line per request must not cost a write(2) per request (at 2 requests
 * in flight, 3,000 requests made 2,370 writes without batching, 308 with it). Every other line
 * (start-up, warnings, errors) is written at once, with whatever access lines wait before it, so
 * the log keeps its order. close() writes what is left.
 */
const BATCH_BYTES = 4096;
const FLUSH_MS = 250;

export interface StdoutLog {
  /** Where the logger writes (createLogger's destination). */
  destination: DestinationStream;
  /** Hands what is pending to stdout and closes, waiting at most `ms`; never throws. */
  close(ms: number): Promise<void>;
}

/**
 * Standard output as the process's log sink: JSON lines written asynchronously by sonic-boom (what
 * pino's default sink is), but nothing of it can hold the process. pino's default registers an
 * exit hook that writes what is pending synchronously, and that write retries every 100 ms, for
 * ever, a stdout whose reader has gone (EPIPE) or stalled; here there is no exit hook: the process
 * calls close() with the time it has left before it exits. A write error (EPIPE, EBADF) turns the
 * log off, quietly; a stdout that nobody reads holds at most MAX_PENDING_BYTES.
 */
export function stdoutLog(fd = 1): StdoutLog {
  // A pipe as stdout is made non-blocking by libuv once process.stdout is first touched; left
  // blocking (nothing else touches it when `npm start` runs dist/main.js), sonic-boom's write to a
  // pipe nobody reads waits in a thread of libuv's pool, and process.exit() waits for that thread:
  // the process outlived SHUTDOWN_TIMEOUT (test/process.test.ts, on the build). Non-blocking, the
  // write fails with EAGAIN, sonic-boom retries later, and the exit is not held.
  if (fd === 1) void process.stdout;
  const boom = new sonicBoom.SonicBoom({
    fd,
    sync: false,
    maxLength: MAX_PENDING_BYTES,
    minLength: BATCH_BYTES,
    periodicFlush: FLUSH_MS,
  });
  let off = false; // after a write error, or once closed
  boom.on("error", () => {
    off = true;
  });
  boom.on("close", () => {
    off = true;
  });
  let closing: Promise<void> | undefined;
  return {
    destination: {
      write(line: string) {
        if (off) return;
        boom.write(line);
        if (!line.endsWith(ACCESS_LINE_END)) boom.flush();
      },
    },
    close(ms: number) {
      closing ??= off
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const done = () => {
              clearTimeout(timer);
              resolve();
            };
            const timer = setTimeout(done, Math.max(0, ms));
            boom.once("close", done);
            boom.once("error", done);
            try {
              boom.end();
            } catch {
              done();
            }
          });
      return closing;
    },
  };
}
