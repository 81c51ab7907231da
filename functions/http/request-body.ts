import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { InvalidJsonError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../domain/errors.ts';

/** PRODUCT.md section 3: request bodies are JSON objects of at most 32 KiB. */
export const MAX_BODY_BYTES = 32 * 1024;

/**
 * - `none`: the route ignores any body (GET).
 * - `json`: a JSON body is required.
 * - `optional-json`: no body, or an empty one, is fine; a non-empty one must be JSON (e.g. cancel).
 */
export type BodyMode = 'none' | 'json' | 'optional-json';

const isJsonMediaType = (contentType: string | undefined) =>
  /^application\/json\s*(;|$)/i.test(contentType?.trim() ?? '');

/** Rejects bytes that are not UTF-8 (one instance per container: creating a decoder costs more than decoding). */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export function parseJsonBody(event: APIGatewayProxyEventV2, mode: BodyMode): unknown {
  if (mode === 'none') return undefined;
  const raw = event.body ?? '';
  const bytes = event.isBase64Encoded ? Buffer.from(raw, 'base64') : undefined;
  const size = bytes ? bytes.length : Buffer.byteLength(raw, 'utf8');
  if (size > MAX_BODY_BYTES) throw new PayloadTooLargeError(MAX_BODY_BYTES);
  if (mode === 'optional-json' && (bytes ? bytes.toString('utf8') : raw).trim() === '') return undefined;
  if (!isJsonMediaType(event.headers['content-type'])) throw new UnsupportedMediaTypeError();
  try {
    // A text body is already a string: no round trip through bytes (toWellFormed() is what that trip did
    // to lone surrogates). A base64 body must be valid UTF-8.
    return JSON.parse(bytes ? strictUtf8.decode(bytes) : raw.toWellFormed());
  } catch {
    throw new InvalidJsonError();
  }
}
