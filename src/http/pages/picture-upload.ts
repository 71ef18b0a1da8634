// The multipart form of /account (the profile picture), read only as far as the checks allow
// (docs/http-api.md#account): the session is checked before any byte of the body is read, and the form's first
// part must be its CSRF token (`_csrf`; browsers send parts in the form's order, and the token is
// the form's first field), checked before any later part is read — a file part is accepted only
// once it passed. When a check fails the rest of the body is never read: the answer carries
// `Connection: close`, and node closes the connection after it.
// Why not the token in the form's URL (`action="/account?_csrf=…"`): that would put a token that
// lives as long as the session into browser history and proxies' logs, for one small first part.
import busboy from "busboy";
import type { Request, Response } from "express";
import { SigilError } from "../../errors.js";

export const PICTURE_MAX_BYTES = 1024 * 1024;

export interface AccountForm {
  /** The text fields after the token (the first value of a repeated one). */
  fields: Record<string, string>;
  /** The `picture` file, when one was sent. */
  picture?: Buffer;
}

export function isMultipart(req: Request): boolean {
  return req.is("multipart/form-data") === "multipart/form-data";
}

/** The answer will be sent before the body was read to its end: close the connection after it. */
export function closeAfterAnswer(res: Response): void {
  res.setHeader("Connection", "close");
}

const unreadable = () => new SigilError(400, "invalid_request", "err.uploadUnreadable", {});

/**
 * Reads the form. checkToken gets the first part's value when that part is the `_csrf` field
 * (undefined otherwise) and resolves to the error to answer with, or undefined when it passed.
 */
export function readAccountForm(
  req: Request,
  res: Response,
  checkToken: (token: string | undefined) => Promise<unknown>,
): Promise<AccountForm> {
  return new Promise((resolve, reject) => {
    let done = false;
    const fields: Record<string, string> = {};
    let picture: Buffer | undefined;
    let fileRead: Promise<void> = Promise.resolve();
    let bb: busboy.Busboy;

    const fail = (err: unknown) => {
      if (done) return;
      done = true;
      req.unpipe(bb);
      req.pause();
      closeAfterAnswer(res);
      reject(err);
    };
    // The token check, started by the first part (a file or another field first: no token).
    let checked: Promise<boolean> | undefined;
    const gate = (token: string | undefined) =>
      (checked ??= checkToken(token).then((err) => {
        if (err) fail(err);
        return !err;
      }));

    // The parts are read as they come: an encoded body cannot be read.
    const encoding = req.headers["content-encoding"];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== "identity") {
      closeAfterAnswer(res);
      return reject(new SigilError(400, "invalid_request", "err.uploadEncoding", {}));
    }
    try {
      bb = busboy({
        headers: req.headers,
        limits: { fileSize: PICTURE_MAX_BYTES, files: 1, fields: 5, fieldSize: 4096, parts: 8, headerPairs: 20 },
      });
    } catch {
      closeAfterAnswer(res);
      return reject(unreadable());
    }
    bb.on("field", (name, value, info) => {
      if (!checked) return void gate(name === "_csrf" && !info.valueTruncated ? value : undefined);
      if (info.valueTruncated || info.nameTruncated) return fail(unreadable());
      if (name !== "_csrf" && !(name in fields)) fields[name] = value;
    });
    bb.on("file", (name, stream) => {
      // Until the token passed, the file stream is not read: busboy, and the request, wait.
      fileRead = gate(undefined).then(
        (passed) =>
          new Promise<void>((fileDone) => {
            if (!passed || done) return;
            if (name !== "picture") return fail(unreadable());
            const chunks: Buffer[] = [];
            stream.on("data", (c: Buffer) => chunks.push(c));
            stream.on("limit", () => fail(new SigilError(413, "request_too_large", "err.pictureBytes", {})));
            stream.on("end", () => {
              if (!stream.truncated) picture = Buffer.concat(chunks);
              fileDone();
            });
          }),
      );
    });
    for (const limit of ["partsLimit", "filesLimit", "fieldsLimit"] as const) bb.on(limit, () => fail(unreadable()));
    bb.on("error", () => fail(unreadable()));
    bb.on("close", () => {
      void gate(undefined).then(async (passed) => {
        await fileRead;
        if (!passed || done) return;
        done = true;
        resolve(picture ? { fields, picture } : { fields });
      });
    });
    // A client that goes away mid-body: nothing more will come.
    req.on("close", () => {
      if (!req.complete) fail(unreadable());
    });
    req.pipe(bb);
  });
}
