import { request } from 'node:http';

export interface PageResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Headers a browser sends on a top-level navigation (fetch() cannot send these: it sets its own). */
export const NAVIGATION_HEADERS = {
  'sec-fetch-mode': 'navigate',
  'sec-fetch-dest': 'document',
  'user-agent':
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36',
  accept: 'text/html',
};

/**
 * A plain HTTP request with exactly the given headers (e.g. a browser navigation or a link-preview bot);
 * `localAddress` (any of 127.0.0.0/8) makes it come from another client, as the checkout tells clients apart.
 */
export function httpRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; localAddress?: string } = {},
): Promise<PageResponse> {
  return new Promise((resolve, reject) => {
    const { method = 'GET', headers, localAddress } = options;
    const req = request(url, { method, headers, localAddress }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      response.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

export const navigate = (url: string) => httpRequest(url, { headers: NAVIGATION_HEADERS });

/** What Chromium sends with a form posted from our own page: same-origin, `Origin: null` under our no-referrer. */
const OUR_FORM_HEADERS = {
  ...NAVIGATION_HEADERS,
  'sec-fetch-site': 'same-origin',
  origin: 'null',
  'content-type': 'application/x-www-form-urlencoded',
};

/** A form of our checkout page posted as Chromium posts it, with `headers` besides (a cookie, a language). */
export const postOurForm = (
  url: string,
  fields: Record<string, string> | string,
  headers: Record<string, string> = {},
) =>
  httpRequest(url, {
    method: 'POST',
    headers: { ...OUR_FORM_HEADERS, ...headers },
    body: typeof fields === 'string' ? fields : String(new URLSearchParams(fields)),
  });
