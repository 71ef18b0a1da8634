// A real SMTP server in the test process (smtp-server on a free port, no TLS, any credentials):
// it keeps every message it receives, parsed (mailparser), and lets a test wait for the next one.
import { SMTPServer } from "smtp-server";
import { simpleParser, type ParsedMail } from "mailparser";

export interface ReceivedMail {
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string;
  /** The login the client gave (user name), to check the URL's credentials were used. */
  user: string | undefined;
}

export class TestSmtp {
  readonly mails: ReceivedMail[] = [];
  private waiters: Array<{ pred: (m: ReceivedMail) => boolean; resolve: (m: ReceivedMail) => void }> = [];
  private constructor(
    private readonly server: SMTPServer,
    readonly port: number,
  ) {}

  static async start(): Promise<TestSmtp> {
    const box: { self?: TestSmtp } = {};
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onAuth(auth, _session, cb) {
        cb(null, { user: auth.username });
      },
      onData(stream, session, cb) {
        simpleParser(stream)
          .then((p: ParsedMail) => {
            const to = Array.isArray(p.to) ? p.to[0] : p.to;
            box.self!.receive({
              to: to?.value[0]?.address ?? "",
              from: p.from?.value[0]?.address ?? "",
              subject: p.subject ?? "",
              text: p.text ?? "",
              html: typeof p.html === "string" ? p.html : "",
              user: typeof session.user === "string" ? session.user : undefined,
            });
            cb();
          })
          .catch((err: Error) => cb(err));
      },
    });
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", () => ok()));
    const address = server.server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    box.self = new TestSmtp(server, port);
    return box.self;
  }

  get url(): string {
    return `smtp://mailer:mail-pass@127.0.0.1:${this.port}`;
  }

  private receive(m: ReceivedMail) {
    this.mails.push(m);
    const still: typeof this.waiters = [];
    for (const w of this.waiters) w.pred(m) ? w.resolve(m) : still.push(w);
    this.waiters = still;
  }

  /** The first mail (already received or still to come) to `to` after `skip` of theirs. */
  next(to: string, skip = 0, timeoutMs = 5000): Promise<ReceivedMail> {
    const theirs = this.mails.filter((m) => m.to === to);
    if (theirs.length > skip) return Promise.resolve(theirs[skip]!);
    let seen = theirs.length;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no mail to ${to} within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({
        pred: (m) => m.to === to && seen++ >= skip,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }

  count(to: string): number {
    return this.mails.filter((m) => m.to === to).length;
  }

  async close(): Promise<void> {
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }
}

/** The link of a mail (the first http URL of its text). */
export function linkOf(mail: ReceivedMail): URL {
  const m = /https?:\/\/\S+/.exec(mail.text);
  if (!m) throw new Error(`no link in: ${mail.text}`);
  return new URL(m[0]);
}
