import {
  type BuyerReferences,
  isClientReferenceId,
  MAX_PREFILLED_EMAIL_LENGTH,
} from '../../domain/buyer-references.ts';
import * as z from '../../zod.ts';
import type { HtmlEvent } from '../html-handler.ts';

/**
 * The buyer references of a checkout visit (docs/api.md#buyer-references): `?client_reference_id=` and
 * `?prefilled_email=` on the link's address. They must outlive the page's own steps (a form posted back to the
 * page, the buyer's return from the PSP, "try again", "pay with another provider"), none of which keeps the query
 * string, so the page keeps them in a cookie of its own, scoped to the link's page. Every form and link of the
 * checkout page reaches them through `checkoutReferences` alone: there is nothing to carry in hidden inputs.
 *
 * A visit whose address carries references replaces those of an earlier visit in the same browser, so each buyer of
 * a reusable link pays with their own; a malformed value is dropped silently, never an error page.
 */
export const REFERENCES_COOKIE = 'pl_refs';

/** How long a visit's references are kept for the page's next steps: the longest a PSP session lives. */
const REFERENCES_MAX_AGE_S = 24 * 3600;

const email = z.email();

/** The well-formed references among raw values (from the query or the cookie); the others are dropped. */
export function wellFormedReferences(raw: {
  client_reference_id?: string | null | undefined;
  prefilled_email?: string | null | undefined;
}): BuyerReferences {
  const reference = raw.client_reference_id ?? undefined;
  const address = raw.prefilled_email?.trim();
  return {
    ...(reference !== undefined && isClientReferenceId(reference) ? { client_reference_id: reference } : {}),
    ...(address && address.length <= MAX_PREFILLED_EMAIL_LENGTH && z.safeParse(email, address).success
      ? { prefilled_email: address }
      : {}),
  };
}

const isEmpty = (references: BuyerReferences) =>
  references.client_reference_id === undefined && references.prefilled_email === undefined;

/** The references on the visit's address, when it carries any, else those the page's cookie kept. */
export function checkoutReferences(
  event: Pick<HtmlEvent, 'queryStringParameters' | 'cookies'>,
): BuyerReferences {
  const fromAddress = addressReferences(event);
  return isEmpty(fromAddress) ? cookieReferences(event) : fromAddress;
}

function addressReferences(event: Pick<HtmlEvent, 'queryStringParameters'>): BuyerReferences {
  const query = event.queryStringParameters ?? {};
  return wellFormedReferences({
    client_reference_id: query.client_reference_id,
    prefilled_email: query.prefilled_email,
  });
}

function cookieReferences(event: Pick<HtmlEvent, 'cookies'>): BuyerReferences {
  for (const cookie of event.cookies ?? []) {
    const separator = cookie.indexOf('=');
    if (cookie.slice(0, separator).trim() !== REFERENCES_COOKIE) continue;
    const kept = new URLSearchParams(decodedOrEmpty(cookie.slice(separator + 1).trim()));
    return wellFormedReferences({
      client_reference_id: kept.get('client_reference_id'),
      prefilled_email: kept.get('prefilled_email'),
    });
  }
  return {};
}

/** A cookie value someone else may have written: malformed percent-encoding reads as nothing, never an error. */
function decodedOrEmpty(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return '';
  }
}

/**
 * The `Set-Cookie` value that keeps the references of a visit whose address carries them (undefined otherwise: the
 * cookie of an earlier visit stays as it is). `HttpOnly`, `SameSite=Lax` and scoped to the link's page, as the
 * buyer cookie is (functions/http/checkout/buyer-cookie.ts).
 */
export function referencesCookie(
  event: Pick<HtmlEvent, 'queryStringParameters'>,
  page: { checkoutBase: string; linkId: string; https: boolean },
): string | undefined {
  const references = addressReferences(event);
  if (isEmpty(references)) return undefined;
  const path = `${new URL(page.checkoutBase).pathname.replace(/\/$/, '')}/${page.linkId}`;
  const value = encodeURIComponent(new URLSearchParams(references as Record<string, string>).toString());
  return [
    `${REFERENCES_COOKIE}=${value}`,
    `Path=${path}`,
    `Max-Age=${REFERENCES_MAX_AGE_S}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(page.https ? ['Secure'] : []),
  ].join('; ');
}
