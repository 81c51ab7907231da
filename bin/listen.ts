import { createServer, type IncomingMessage } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { parseCommandLine } from '../lib/local/command-line.ts';

/**
 * `npm run listen -- --port 4000`: a webhook receiver for trying the service out, as the PSPs' own CLIs have
 * one. It verifies each delivery's Standard Webhooks signature with the secrets it was given (the key's
 * WEBHOOK_SECRET, and each `--secret`, say an endpoint's), prints the event's type, id and the verdict, and
 * answers 204 so that a delivery is not retried for the receiver's sake; a bad signature is printed, not hidden.
 */
const USAGE = `Usage:
  npm run listen -- [--port 4000] [--host 127.0.0.1] [--secret whsec_...]...

Receives webhooks on any path, verifies each with WEBHOOK_SECRET (the banner of npm start prints it) and with
each --secret given (a webhook endpoint's own secret), prints its type, id and verdict, and answers 204.`;

const { values } = parseCommandLine(
  {
    options: {
      port: { type: 'string', default: '4000' },
      host: { type: 'string', default: '127.0.0.1' },
      secret: { type: 'string', multiple: true, default: [] },
    },
  },
  USAGE,
);

const secrets = [
  ...(process.env.WEBHOOK_SECRET ? [{ name: 'WEBHOOK_SECRET', secret: process.env.WEBHOOK_SECRET }] : []),
  ...(values.secret ?? []).map((secret, index) => ({ name: `--secret #${index + 1}`, secret })),
];
if (secrets.length === 0) {
  console.error(
    'No secret to verify with: set WEBHOOK_SECRET (the banner of npm start prints it) or pass --secret.',
  );
  process.exit(2);
}
const verifiers = secrets.map(({ name, secret }) => {
  try {
    return { name, webhook: new Webhook(secret) };
  } catch (error) {
    console.error(`${name} is not a webhook secret (whsec_...): ${(error as Error).message}`);
    return process.exit(2);
  }
});

async function rawBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The first secret the signature verifies with, or why none does (the timestamp check is part of verify). */
function verdict(body: string, headers: Record<string, string>): string {
  const failures: string[] = [];
  for (const { name, webhook } of verifiers) {
    try {
      webhook.verify(body, headers);
      return `verified (${name})`;
    } catch (error) {
      failures.push(`${name}: ${(error as Error).message}`);
    }
  }
  return `NOT VERIFIED (${failures.join('; ')}; an endpoint's delivery is signed with its own secret: --secret)`;
}

function eventType(body: string): string {
  try {
    return String((JSON.parse(body) as { type?: unknown }).type ?? '?');
  } catch {
    return '(not JSON)';
  }
}

const server = createServer(async (request, response) => {
  const body = await rawBody(request);
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.join(',') : `${value}`,
    ]),
  );
  const id = headers['webhook-id'] ?? '(no webhook-id)';
  console.log(`${request.method} ${request.url}  ${eventType(body)}  ${id}  ${verdict(body, headers)}`);
  response.writeHead(204).end();
});

server.listen(Number(values.port), values.host, () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : values.port;
  console.log(
    `Listening for webhooks on http://${values.host}:${port}/ (any path), verifying with ${secrets.map((s) => s.name).join(', ')}`,
  );
});
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => server.close(() => process.exit(0)));
