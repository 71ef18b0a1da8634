// POST {base_url}/realtime/publish — an app publishes to its channels (docs/http-api.md#post-base_urlrealtimepublish,
// docs/realtime.md#channels). Authenticated as the app before the body is read: HTTP Basic client
// credentials, or a CUSTOM TOKEN made with --publish. Its body (one message or a batch) may be
// larger than other JSON bodies, so it is read here, after authentication, and never by the
// middleware list's JSON body entry (http/middleware/index.ts).
import express, { type NextFunction, type Request, type Response } from "express";
import { z } from "zod";
import {
  MAX_BATCH,
  type ChannelMessages,
  type Publisher,
  type PublisherCredentials,
} from "../domain/channel-messages.js";
import { bearerToken } from "../domain/custom-tokens.js";
import { errorResponse, type ApiOperation } from "./openapi.js";
import { readCredentials } from "./oauth/client-auth.js";

export const PUBLISH_PATH = "/realtime/publish";

/**
 * The publish body's limit: a full batch (100 messages of 64 KB of data each) with room for the
 * channel names and the JSON around them.
 */
export const PUBLISH_MAX_BODY = `${MAX_BATCH * 65 + 16}kb`;

/** Whether a request is for the publish endpoint (as express routes it: any case, a trailing slash). */
export function isPublishRequest(url: string | undefined): boolean {
  const path = (url ?? "").split("?")[0]!.toLowerCase();
  return path === PUBLISH_PATH || path === `${PUBLISH_PATH}/`;
}

const parseBody = express.json({
  limit: PUBLISH_MAX_BODY,
  strict: false,
  type: ["application/json", "application/*+json"],
});

/** The credentials of a publish request: Basic, Bearer, or none. */
function credentialsOf(req: Request): PublisherCredentials {
  const h = req.headers.authorization;
  if (h === undefined) return undefined;
  if (/^Bearer(\s|$)/i.test(h)) return { token: bearerToken(h) };
  return { basic: readCredentials(req, {}) };
}

export function publishHandlers(channels: ChannelMessages) {
  return [
    async (req: Request, res: Response, next: NextFunction) => {
      res.locals.publisher = await channels.publisher(credentialsOf(req), req.ip ?? "");
      next();
    },
    parseBody,
    async (req: Request, res: Response) => {
      const body: unknown = req.body;
      res.status(200).json(await channels.publish(res.locals.publisher as Publisher, body));
    },
  ];
}

const Message = z.object({
  channel: z
    .string()
    .regex(/^[A-Za-z0-9_:.-]{1,128}$/)
    .meta({ description: "1 to 128 of A-Z a-z 0-9 _ : . -" }),
  data: z.unknown().meta({ description: "any JSON value, at most 64 KB as JSON" }),
});

export const publishSpec: ApiOperation = {
  method: "post",
  path: PUBLISH_PATH,
  summary:
    "Publish to the app's channels: one message or an array of up to 100, each stored in its channel's history, then sent to its subscribers.",
  tags: ["realtime"],
  body: {
    schema: z.union([Message, z.array(Message).min(1).max(MAX_BATCH)]),
    contentTypes: ["application/json"],
    required: true,
  },
  security: [{ basic: [] }, { bearer: [] }],
  responses: {
    200: {
      description: "every message is in its channel's history",
      schema: z.object({ ids: z.array(z.string()).meta({ description: "the messages' ids, in the order sent" }) }),
    },
    400: errorResponse("invalid_request: the body, a channel name or a data is malformed or missing"),
    401: errorResponse("invalid_client (Basic, or no credentials) or invalid_token (Bearer)"),
    403: errorResponse("forbidden: the custom token was not made with --publish, or not for this channel"),
    413: errorResponse("request_too_large: a message's data is over 64 KB, or the body over its limit"),
    429: errorResponse("rate_limited: too many publish requests for this app"),
    503: errorResponse("the store cannot be reached"),
  },
};
