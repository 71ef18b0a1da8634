// JSON-lines logging (pino). Nothing secret is ever passed to a log call; the redaction list is a
// second line of defence for fields that could carry one by mistake.
import { pino, type DestinationStream, type Logger } from "pino";

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
