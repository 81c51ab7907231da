/**
 * What the link's address may carry about the buyer (docs/api.md#buyer-references): the merchant's own reference of
 * this buyer and an e-mail address to prefill at the PSP. Both come from whoever opened the address, so they are
 * buyer-supplied and unverified: a merchant must not treat them as proof of who paid.
 */
export interface BuyerReferences {
  /** 1 to 200 of `A-Z a-z 0-9 _ -`: the longest reference the PSPs we know take (docs/api.md#buyer-references). */
  client_reference_id?: string;
  /** An e-mail address, offered to the buyer at the PSP where it takes one; never stored as their `buyer` details. */
  prefilled_email?: string;
}

export const CLIENT_REFERENCE_ID_PATTERN = /^[A-Za-z0-9_-]{1,200}$/;
/** RFC 5321's longest forward path less its brackets. */
export const MAX_PREFILLED_EMAIL_LENGTH = 254;

export const isClientReferenceId = (value: string): boolean => CLIENT_REFERENCE_ID_PATTERN.test(value);
