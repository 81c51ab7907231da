import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { failWithUsage } from '../lib/local/cli-target.ts';
import { parseCommandLine } from '../lib/local/command-line.ts';

const USAGE = `Usage:
  npm run pay -- pl_... [--amount 12.34] [--decline]

What a buyer does on the sandbox PSP's page, without a browser, as the PSPs' own CLIs trigger events: opens the
link's checkout_url as a browser does (which opens a sandbox session, or finds the open one), presses Pay (or
Decline, with --decline) on that session's page, and says what came of it (docs/checkout.md#sandbox).
--amount is what the buyer types on a link with amount_range (default: its suggested amount), written as the
page reads it: in English (12.34), or in the link's locale when it has one.
BASE and KEY are the ones the banner of npm start prints (or --base and --key).

Exit status: 0 when the payment went as asked (paid, under way, or declined with --decline), 1 when it did not
(declined by the sandbox, refused, not open), 2 for a usage error.`;

const { values, positionals } = parseCommandLine(
  {
    allowPositionals: true,
    options: {
      amount: { type: 'string' },
      decline: { type: 'boolean', default: false },
      base: { type: 'string', default: process.env.BASE },
      key: { type: 'string', default: process.env.KEY },
    },
  },
  USAGE,
);

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

const usageError: (message: string) => never = failWithUsage(USAGE);
const [linkId, ...extra] = positionals;
if (!linkId) usageError('Which link? Give its id (pl_...).');
if (extra.length > 0) usageError(`One link at a time: ${positionals.join(' ')}`);
if (!values.base || !values.key) usageError('BASE and KEY are needed (the banner of npm start prints them).');
const base = values.base.replace(/\/$/, '');

interface Money {
  value: string;
  currency: string;
}
interface Link {
  status: string;
  checkout_url: string;
  amount: Money | null;
  amount_range: { currency: string; minimum: string; maximum: string; suggested?: string | null } | null;
}
interface Payment {
  id: string;
  status: string;
  amount: Money;
}

/** A GET of the merchant API with the key; a refusal ends the command with the problem's own words. */
async function api<T>(path: string): Promise<T> {
  const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${values.key}` } });
  if (response.ok) return (await response.json()) as T;
  const problem = (await response.json().catch(() => ({}))) as { detail?: string; title?: string };
  return fail(`GET ${path}: ${response.status} ${problem.detail ?? problem.title ?? ''}`.trim());
}

const linkPath = `/v1/payment-links/${encodeURIComponent(linkId)}`;
const link = () => api<Link>(linkPath);
const payments = async () => (await api<{ data: Payment[] }>(`${linkPath}/payments`)).data;

interface Page {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * A page as curl or a click in an older browser asks for it: without Fetch Metadata. Node's fetch() always sends
 * `Sec-Fetch-Mode: cors`, which the checkout rightly reads as a link preview and answers without a session.
 */
function page(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
) {
  const send = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise<Page>((resolve, reject) => {
    const request = send(url, { method: options.method ?? 'GET', headers: options.headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text }),
      );
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };
const textOf = (html: string) =>
  html.replace(/&(amp|lt|gt|quot|#39);/g, (_entity, name: string) => ENTITIES[name] ?? '').trim();

/** What a page says to its reader: the error under a refused field, else its title. */
function pageSays(page: Page): string {
  const error = /<p id="[\w-]*error" class="error">([^<]*)<\/p>/.exec(page.text)?.[1];
  const title = /<title>([^<]*)<\/title>/.exec(page.text)?.[1];
  return textOf(error ?? title ?? '');
}

/** The sandbox session the checkout page forwards to, or why it forwards to none. */
function sandboxSession(checkout: Page, checkoutUrl: string): string {
  const session = /https?:\/\/[^"'\s<>]+\/sandbox\/checkout\/sbcs_[A-Za-z0-9]+/.exec(checkout.text)?.[0];
  if (session) return session;
  const elsewhere = /http-equiv="refresh" content="0;url=([^"]+)"/.exec(checkout.text)?.[1];
  if (elsewhere) {
    fail(
      `The checkout forwards to ${new URL(textOf(elsewhere)).origin}: only the sandbox can be paid from here.`,
    );
  }
  // A 200 without a session is a form that asks more than an amount (custom fields, quantities, details).
  const instead = checkout.status === 200 ? `; answer its form in a browser: ${checkoutUrl}` : '';
  return fail(`The checkout opened no sandbox session (${checkout.status}: ${pageSays(checkout)})${instead}`);
}

/**
 * A link with `amount_range`: the amount form sent as the buyer sends it (our own form: the browser adds no other
 * site's origin), then the page it sees after the 303, with the buyer's cookie of a reusable link.
 */
async function chooseAmount(checkoutUrl: string, amount: string): Promise<Page> {
  const answer = await page(checkoutUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en' },
    body: String(new URLSearchParams({ amount })),
  });
  if (answer.status !== 303) fail(`The checkout refused ${amount}: ${pageSays(answer)}`);
  const cookie = (answer.headers['set-cookie'] ?? []).map((line) => line.split(';')[0]).join('; ');
  const forwarded = await page(new URL(answer.headers.location ?? checkoutUrl, checkoutUrl).href, {
    headers: cookie ? { cookie } : {},
  });
  return {
    ...forwarded,
    headers: {
      ...forwarded.headers,
      'set-cookie': forwarded.headers['set-cookie'] ?? answer.headers['set-cookie'],
    },
  };
}

/** The buyer's own payment, which the checkout of a reusable link names in its cookie (docs/checkout.md#reusable-links). */
const buyersPayment = (checkout: Page) =>
  (checkout.headers['set-cookie'] ?? []).map((line) => /^pl_payment=(pay_\w+)/.exec(line)?.[1]).find(Boolean);

/** The amount the buyer types: `--amount`, else the range's suggestion; none on a link with a fixed amount. */
function amountToType(current: Link): string | undefined {
  const range = current.amount_range;
  if (!range) {
    if (values.amount !== undefined) {
      fail(
        `${linkId} asks a fixed ${current.amount?.value} ${current.amount?.currency}: --amount is for a link with amount_range.`,
      );
    }
    return undefined;
  }
  const amount = values.amount ?? range.suggested ?? undefined;
  if (amount === undefined) {
    fail(
      `${linkId} lets the buyer choose between ${range.minimum} and ${range.maximum} ${range.currency}: give --amount.`,
    );
  }
  return amount;
}

/** What came of the attempt, in one line, and the exit status: 0 when it went as asked. */
function outcome(attempt: Payment | undefined, linkStatus: string): { line: string; status: number } {
  const paid = attempt && `${attempt.amount.value} ${attempt.amount.currency}`;
  if (attempt?.status === 'succeeded') {
    return { line: `Paid ${linkId} (${paid}) on the sandbox: the link is ${linkStatus}`, status: 0 };
  }
  if (attempt?.status === 'failed') {
    const why = values.decline ? 'as --decline asked' : "its connection's --success-rate";
    return {
      line: `${linkId} declined by the sandbox (simulated: ${why}): the link is ${linkStatus}`,
      status: values.decline ? 0 : 1,
    };
  }
  if (attempt?.status === 'pending' && !values.decline) {
    return {
      line: `Payment of ${linkId} (${paid}) under way on the sandbox (simulated processing, it succeeds later): the link is ${linkStatus}`,
      status: 0,
    };
  }
  return {
    line: `The sandbox took the ${values.decline ? 'Decline' : 'Pay'}, but ${linkId} is ${linkStatus} and its payment ${attempt?.status ?? 'unknown'}`,
    status: 1,
  };
}

/** The service is not there (npm start not running, another BASE): one line, not the network error's stack. */
function unreachable(error: unknown): never {
  // fetch() names the network's error in its cause (a code, or a message such as "bad port"); node:http in its code.
  const failed = error as { cause?: { code?: unknown; message?: unknown }; code?: unknown };
  const why = failed.cause?.code ?? failed.cause?.message ?? failed.code;
  if (typeof why !== 'string') throw error;
  return fail(`Cannot reach the service at ${base} (${why}): is npm start running, and is BASE its address?`);
}

async function payOnce(): Promise<{ line: string; status: number }> {
  const before = await link();
  if (before.status !== 'open') fail(`${linkId} is ${before.status}: only an open link can be paid.`);
  const amount = amountToType(before);
  const checkout =
    amount === undefined ? await page(before.checkout_url) : await chooseAmount(before.checkout_url, amount);
  const session = sandboxSession(checkout, before.checkout_url);
  // The attempt is the payment of this session, pending until Pay or Decline settles it: the buyer's own on a
  // reusable link, else the single-use link's one payable session's.
  const own = buyersPayment(checkout);
  const pending = new Set(
    (await payments())
      .filter((payment) => (own ? payment.id === own : payment.status === 'pending'))
      .map(({ id }) => id),
  );
  const action = values.decline ? 'decline' : 'pay';
  const answer = await page(`${session}/${action}`, { method: 'POST' });
  if (answer.status >= 400) fail(`The sandbox refused the ${action} (${answer.status}: ${pageSays(answer)})`);
  const after = await payments();
  const attempt =
    after.find((payment) => pending.has(payment.id) && payment.status !== 'pending') ??
    after.find((payment) => pending.has(payment.id));
  return outcome(attempt, (await link()).status);
}

const { line, status } = await payOnce().catch(unreachable);
(status === 0 ? console.log : console.error)(line);
process.exit(status);
