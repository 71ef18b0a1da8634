// node's HTTP server around a request handler: the header size limit and the answers node would
// otherwise give in its own form (417 for an Expect it does not support, 431 for headers over the
// limit, 400 for a request it cannot parse), listening, and the drain.
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { english, message, type ErrorBody } from "../errors.js";

/** Headers in all: 16 KB (docs/http-api.md#conventions). */
export const MAX_HEADER_BYTES = 16 * 1024;

/**
 * The server, without its request handler (server.on("request", …)). An idle keep-alive connection
 * stays open `keepAliveSeconds` (KEEP_ALIVE_TIMEOUT); the time allowed for a request's headers stays
 * above it, as node asks.
 */
export function createHttpServer(keepAliveSeconds: number): Server {
  const server = createServer({
    maxHeaderSize: MAX_HEADER_BYTES,
    keepAliveTimeout: keepAliveSeconds * 1000,
    headersTimeout: Math.max(60_000, (keepAliveSeconds + 1) * 1000),
  });
  // An Expect other than 100-continue (node answers that one itself): 417 in the documented error form, not
  // node's bare 417. The request is not served and its body is not read, so the connection closes.
  server.on("checkExpectation", (req, res) => {
    const body = JSON.stringify({
      error: "expectation_failed",
      error_description: english(message("err.expectHeader")),
    } satisfies ErrorBody);
    res.writeHead(417, {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Length": Buffer.byteLength(body),
      Connection: "close",
    });
    res.end(req.method === "HEAD" ? undefined : body);
  });
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Socket) => {
    if (err.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    if (err.code === "HPE_HEADER_OVERFLOW") {
      const body = JSON.stringify({
        error: "request_too_large",
        error_description: english(message("err.headersTooLarge")),
      });
      // A response to HEAD has no body: a client would read it as the start of another response.
      const raw = (err as { rawPacket?: unknown }).rawPacket;
      const head = Buffer.isBuffer(raw) && raw.subarray(0, 5).toString("latin1") === "HEAD ";
      socket.end(
        `HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? "" : body}`,
      );
      return;
    }
    socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
  });
  return server;
}

/** Where a server listens, from server.address(). */
export interface Listening {
  /** The address bound, as a URL: http://[::]:3000 or http://0.0.0.0:3000 for every interface. */
  address: string;
  /** Whether that is every interface (HOST unset, ::, 0.0.0.0). */
  everyInterface: boolean;
  /** A URL this machine reaches it at: the address, with 127.0.0.1 for every interface. */
  url: string;
}

/** Listens; resolves with where (server.address()). */
export function listen(server: Server, port: number, host: string | undefined): Promise<Listening> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const a = server.address() as AddressInfo;
      const h = a.family === "IPv6" ? `[${a.address}]` : a.address;
      const everyInterface = h === "[::]" || h === "0.0.0.0";
      resolve({
        address: `http://${h}:${a.port}`,
        everyInterface,
        url: `http://${everyInterface ? "127.0.0.1" : h}:${a.port}`,
      });
    });
  });
}

/**
 * Drains: stops accepting, lets in-flight requests finish, closes idle keep-alive connections, and
 * cuts what is still open after `timeoutSeconds`.
 */
export function drain(server: Server, timeoutSeconds: number): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    const force = setTimeout(() => server.closeAllConnections(), timeoutSeconds * 1000);
    force.unref();
    // A keep-alive connection whose request was in flight becomes idle only later: keep
    // closing idle ones so that the drain ends when the last response does.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    sweep.unref();
    server.close(() => {
      clearTimeout(force);
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}
