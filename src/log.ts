// JSON-lines logging (pino). Nothing secret is ever passed to a log call; the redaction list is a
// second line of defence for fields that could carry one by mistake.
import { pino, type DestinationStream, type Logger } from "pino";
import sonicBoom from "sonic-boom";

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

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: "sigil" },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}

/** Log bytes held while stdout is not taken; beyond them new lines are dropped, not queued. */
const MAX_PENDING_BYTES = 8 * 1024 * 1024;

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
  const boom = new sonicBoom.SonicBoom({ fd, sync: false, maxLength: MAX_PENDING_BYTES });
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
        if (!off) boom.write(line);
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
