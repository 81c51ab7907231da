import { httpRequest, NAVIGATION_HEADERS, type PageResponse } from './navigate.ts';

/** A buyer's browser on the checkout (see `browser`). */
export interface Browser {
  visit(url: string): Promise<PageResponse>;
  /** Posts our amount form (a link with `amount_range`). */
  choose(url: string, amount: string): Promise<PageResponse>;
  /** Posts our "before you pay" form with these fields. */
  answer(url: string, fields: Record<string, string>): Promise<PageResponse>;
  /** The payment the checkout's cookie names (a reusable link's), if the browser keeps one. */
  readonly payment: string | undefined;
}

/**
 * A buyer's browser at `address` (any of 127.0.0.0/8: the checkout tells clients without a cookie apart by their
 * address). It keeps the checkout's cookie, as a browser does, unless told to drop it; its forms are posted from
 * our own page.
 */
export function browser(
  address: string,
  options: { keepsCookies?: boolean; language?: string } = {},
): Browser {
  let cookie: string | undefined;
  const send = async (url: string, method = 'GET', body?: string): Promise<PageResponse> => {
    const page = await httpRequest(url, {
      method,
      localAddress: address,
      headers: {
        ...NAVIGATION_HEADERS,
        ...(options.language ? { 'accept-language': options.language } : {}),
        ...(cookie ? { cookie } : {}),
        ...(body === undefined
          ? {}
          : { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' }),
      },
      body,
    });
    const set = ([] as string[]).concat(page.headers['set-cookie'] ?? [])[0];
    if (set && options.keepsCookies !== false) cookie = set.split(';')[0];
    return page;
  };
  return {
    visit: (url) => send(url),
    choose: (url, amount) => send(url, 'POST', `amount=${encodeURIComponent(amount)}`),
    answer: (url, fields) => send(url, 'POST', String(new URLSearchParams(fields))),
    get payment() {
      return cookie?.split('=')[1];
    },
  };
}

/** `count` buyers' browsers, each at its own address `127.0.<subnet>.<1..count>`. */
export const buyersAt = (subnet: number, count: number, options?: Parameters<typeof browser>[1]): Browser[] =>
  Array.from({ length: count }, (_, index) => browser(`127.0.${subnet}.${index + 1}`, options));
