// GET /client.js and /client.js.map — the bundled browser client (docs/http-api.md#bundled-client-and-demo), built by
// `npm run build` into client/dist/browser/. Plus GET /demo, the page that shows it in use.
//
// Caching: the URL is not versioned, so browsers may keep the file only briefly (5 minutes) and
// then revalidate it cheaply with ETag / Last-Modified (a 304). Without a build the routes answer
// a JSON 404 that says how to build, instead of crashing or serving nothing.
import { Router, type Request, type Response } from "express";
import { stat } from "node:fs/promises";
import type { Stats } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Config } from "../config.js";
import { notFound } from "../errors.js";
import { demoPage } from "./demo.js";
import { logOf } from "./middleware/context.js";
import { route } from "./route.js";

/** client/dist/browser, from src/http (tsx) or dist/http (built): both are two levels down. */
export const DEFAULT_BUNDLE_DIR = fileURLToPath(new URL("../../client/dist/browser/", import.meta.url));

const CACHE_CONTROL = "public, max-age=300";

function serveFile(dir: string, file: string, type: string) {
  const path = join(dir, file);
  return async (req: Request, res: Response) => {
    let info: Stats;
    try {
      info = await stat(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      logOf(req)?.warn({ file }, "client bundle not built");
      throw notFound("err.clientNotBuilt");
    }
    res.set({
      "Content-Type": type,
      "Cache-Control": CACHE_CONTROL,
      // express turns send's own ETag off with the app's "etag" setting (off for the JSON API),
      // so it is set here; send still answers 304 for it and for Last-Modified.
      ETag: `W/"${info.size.toString(16)}-${Math.trunc(info.mtimeMs).toString(16)}"`,
      "X-Content-Type-Options": "nosniff",
      // Lets pages load it with <script crossorigin integrity=…> and read its source map.
      "Access-Control-Allow-Origin": "*",
    });
    await new Promise<void>((resolve, reject) => {
      res.sendFile(path, { lastModified: true, cacheControl: false }, (err) => {
        // An error after the headers went out is a client that went away: nothing to answer.
        if (err && !res.headersSent) reject(err);
        else resolve();
      });
    });
  };
}

export function clientBundleRoutes(config: Config, dir: string = DEFAULT_BUNDLE_DIR): Router {
  const router = Router();
  route(router, "/client.js", { get: serveFile(dir, "client.js", "application/javascript; charset=utf-8") });
  route(router, "/client.js.map", { get: serveFile(dir, "client.js.map", "application/json; charset=utf-8") });
  route(router, "/demo", { get: demoPage(config) });
  return router;
}
