// The access line (src/log.ts accessLog) is built by hand, not by pino's serializer: it must be,
// byte for byte, the line pino writes for the same fields (operators parse one format), at the
// logger's level. And the log's time (src/iso-time.ts), formatted once per millisecond, must be
// what Date#toISOString gives.
import { expect } from "chai";
import { ACCESS_LOG_MSG, accessLog, createLogger, type AccessLine } from "../src/log.js";
import { isoTime } from "../src/iso-time.js";

const TIME = /"time":"([^"]*)"/;

function sink() {
  const lines: string[] = [];
  return { lines, destination: { write: (s: string) => void lines.push(s) } };
}

describe("The access line", () => {
  const cases: AccessLine[] = [
    { reqId: "3b0f6f8e-6f53-4a36-9d0b-2a2f1b1b8f1e", method: "POST", path: "/challenge/solve", status: 200, ms: 0.4 },
    { reqId: "access-1", method: "GET", path: "/auth/user", status: 401, ms: 12 },
    { reqId: "x", method: "DELETE", path: '/a"b\\c', status: 404, ms: 1234.5 },
    { reqId: "y", method: "PATCH", path: "/caf\u00e9/\u2603/\ud83d\ude00", status: 503, ms: 0 },
    { reqId: "z", method: "OPTIONS", path: "/tab\there/nl\n/\u0001", status: 204, ms: 100000.1 },
  ];

  for (const line of cases) {
    it(`When ${line.method} ${JSON.stringify(line.path)} is logged, then its line is pino's for the same fields`, () => {
      const ours = sink();
      const pinos = sink();
      accessLog(createLogger("info", ours.destination))(line);
      createLogger("info", pinos.destination).info({ ...line }, ACCESS_LOG_MSG);
      expect(ours.lines).to.have.length(1);
      expect(pinos.lines).to.have.length(1);
      const t = TIME.exec(ours.lines[0]!)?.[1];
      expect(t, "an ISO time").to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      // The two lines were written in different milliseconds, maybe: compare with the same time.
      expect(ours.lines[0]).to.equal(pinos.lines[0]!.replace(TIME, `"time":"${t}"`));
      expect(JSON.parse(ours.lines[0]!)).to.deep.equal({
        level: "info",
        time: t,
        service: "sigil",
        ...line,
        msg: ACCESS_LOG_MSG,
      });
    });
  }

  it("When the log level is above info, then no access line is written", () => {
    for (const level of ["warn", "error", "silent"]) {
      const out = sink();
      accessLog(createLogger(level, out.destination))(cases[0]!);
      expect(out.lines, level).to.deep.equal([]);
    }
    const out = sink();
    accessLog(createLogger("debug", out.destination))(cases[0]!);
    expect(out.lines).to.have.length(1);
  });
});

describe("The log's time", () => {
  it("When times are formatted, then each is Date#toISOString's, also when asked again for an earlier one", () => {
    const times = [0, 1, 999, 1_000, 1_764_200_000_123, 1_764_200_000_124, 1_764_200_000_123, -1, 8.64e15, Date.now()];
    for (const ms of times) expect(isoTime(ms), String(ms)).to.equal(new Date(ms).toISOString());
    for (let i = 0; i < 50; i++) {
      const now = Date.now();
      expect(isoTime(now)).to.equal(new Date(now).toISOString());
      expect(isoTime()).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
  });

  it("When a time is not a time, then it throws as toISOString does, and the next good time is right", () => {
    expect(() => isoTime(Number.NaN)).to.throw(RangeError);
    expect(() => isoTime(8.64e15 + 1)).to.throw(RangeError);
    expect(isoTime(5)).to.equal(new Date(5).toISOString());
  });
});
