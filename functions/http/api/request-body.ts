import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { InvalidJsonError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../domain/errors.ts';

/** Request bodies are JSON objects of at most 32 KiB (docs/api.md#conventions). */
export const MAX_BODY_BYTES = 32 * 1024;
/**
 * PSP notifications, verified over their exact bytes: far above any notification of a payment or refund (a few
 * KB), far below API Gateway's 10 MB, so a flood of large bodies costs no signature check over megabytes.
 */
export const MAX_NOTIFICATION_BODY_BYTES = 256 * 1024;
/** Far deeper than any request of ours (3 levels); deeper bodies are refused before anything walks them. */
export const MAX_JSON_DEPTH = 32;

/** Nesting depth of a parsed JSON value, measured without recursion (a 32 KiB body can nest 16,000 deep). */
function depthOf(value: unknown): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length) {
    const [current, depth] = pending.pop() as [unknown, number];
    if (current === null || typeof current !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_JSON_DEPTH) return deepest;
    for (const child of Object.values(current)) pending.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * - `none`: the route ignores any body (GET).
 * - `json`: a JSON body is required.
 * - `optional-json`: no body, or an empty one, is fine; a non-empty one must be JSON (e.g. cancel).
 * - `merge-patch`: a JSON body is required, as `application/json` or `application/merge-patch+json`
 *   (RFC 7396, the media type of a PATCH that states the fields to replace).
 * - `notification`: any media type, passed on as text exactly as received (its signature covers those bytes),
 *   at most `MAX_NOTIFICATION_BODY_BYTES`.
 */
export type BodyMode = 'none' | 'json' | 'optional-json' | 'merge-patch' | 'notification';

const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;
const JSON_OR_MERGE_PATCH_MEDIA_TYPE = /^application\/(merge-patch\+)?json\s*(;|$)/i;

/** Rejects bytes that are not UTF-8 (one instance per container: creating a decoder costs more than decoding). */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A body as API Gateway passed it: text, or base64 (`bytes`, decoded); `size` in bytes either way. */
interface ReceivedBody {
  raw: string;
  bytes: Buffer | undefined;
  size: number;
}

function receivedBody(event: APIGatewayProxyEventV2): ReceivedBody {
  const raw = event.body ?? '';
  const bytes = event.isBase64Encoded ? Buffer.from(raw, 'base64') : undefined;
  return { raw, bytes, size: bytes ? bytes.length : Buffer.byteLength(raw, 'utf8') };
}

const textOf = (body: ReceivedBody) => (body.bytes ? body.bytes.toString('utf8') : body.raw);

export function parseJsonBody(event: APIGatewayProxyEventV2, mode: BodyMode): unknown {
  if (mode === 'none') return undefined;
  const body = receivedBody(event);
  if (mode === 'notification') return notificationText(body);
  if (body.size > MAX_BODY_BYTES) throw new PayloadTooLargeError(MAX_BODY_BYTES);
  if (mode === 'optional-json' && textOf(body).trim() === '') return undefined;
  const mediaType = mode === 'merge-patch' ? JSON_OR_MERGE_PATCH_MEDIA_TYPE : JSON_MEDIA_TYPE;
  if (!mediaType.test(event.headers['content-type']?.trim() ?? '')) throw new UnsupportedMediaTypeError();
  return parsedJson(body);
}

/** A notification's body as text, exactly as received (`notification` mode). */
function notificationText(body: ReceivedBody): string {
  if (body.size > MAX_NOTIFICATION_BODY_BYTES) throw new PayloadTooLargeError(MAX_NOTIFICATION_BODY_BYTES);
  return textOf(body);
}

/** The JSON value of a body, refused when it is no JSON or nests deeper than `MAX_JSON_DEPTH`. */
function parsedJson(body: ReceivedBody): unknown {
  let parsed: unknown;
  try {
    // A text body is already a string: no round trip through bytes (toWellFormed() is what that trip did
    // to lone surrogates). A base64 body must be valid UTF-8.
    parsed = JSON.parse(body.bytes ? strictUtf8.decode(body.bytes) : body.raw.toWellFormed());
  } catch {
    throw new InvalidJsonError();
  }
  if (depthOf(parsed) > MAX_JSON_DEPTH) {
    throw new InvalidJsonError(`The request body nests more than ${MAX_JSON_DEPTH} levels deep.`);
  }
  return parsed;
}
