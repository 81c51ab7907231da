import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { parseArgs } from 'node:util';

/**
 * `npm run pay -- pl_... [--decline]`: what a buyer does on the sandbox PSP's page, without a browser, as
 * `stripe trigger` is for Stripe. It opens the link's checkout_url as a browser would (which opens a sandbox
 * session, or finds the open one), then sends the sandbox page's own Pay (or Decline) request for that session
 * (docs/checkout.md#sandbox). BASE and KEY come from the banner of `npm start`.
 */
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    decline: { type: 'boolean', default: false },
    base: { type: 'string', default: process.env.BASE },
    key: { type: 'string', default: process.env.KEY },
  },
});

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

const [linkId] = positionals;
if (!linkId || !values.base || !values.key) {
  fail(
    'Usage: npm run pay -- pl_... [--decline]   (BASE and KEY set as the banner of npm start prints them)',
  );
}
const base = values.base.replace(/\/$/, '');
const authorization = { authorization: `Bearer ${values.key}` };

async function link(): Promise<{ status: string; checkout_url: string }> {
  const response = await fetch(`${base}/v1/payment-links/${encodeURIComponent(linkId as string)}`, {
    headers: authorization,
  });
  if (!response.ok) fail(`GET /v1/payment-links/${linkId}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { status: string; checkout_url: string };
}

/**
 * The checkout page forwards to the PSP's page with a link; for the sandbox, that names its session. Read as a
 * plain GET without Fetch Metadata, as curl or a click in an older browser is: Node's fetch() always sends
 * `Sec-Fetch-Mode: cors`, which the checkout rightly reads as a link preview and answers without a session.
 */
async function sandboxSessionUrl(checkoutUrl: string): Promise<string> {
  const get = checkoutUrl.startsWith('https:') ? httpsGet : httpGet;
  const { status, page } = await new Promise<{ status: number; page: string }>((resolve, reject) => {
    get(checkoutUrl, (response) => {
      let text = response.headers.location ?? '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, page: text }));
    }).on('error', reject);
  });
  const session = /https?:\/\/[^"'\s<>]+\/sandbox\/checkout\/sbcs_[A-Za-z0-9]+/.exec(page)?.[0];
  if (!session)
    fail(`The checkout (${status}) does not lead to the sandbox PSP: is the link open, and in test mode?`);
  return session;
}

const before = await link();
if (before.status !== 'open') fail(`${linkId} is ${before.status}: only an open link can be paid.`);
const session = await sandboxSessionUrl(before.checkout_url);
const action = values.decline ? 'decline' : 'pay';
const answer = await fetch(`${session}/${action}`, { method: 'POST', redirect: 'manual' });
if (answer.status >= 400) fail(`POST ${session}/${action}: ${answer.status}`);
const after = await link();
console.log(
  `${action === 'pay' ? 'Paid' : 'Declined'} ${linkId} on the sandbox: the link is ${after.status}`,
);
