import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventMessage } from '../../functions/adapters/sqs/event-queue.ts';
import { handler as deliverWebhooks } from '../../functions/handlers/deliver-webhook.ts';
import { lambdaContext } from '../../lib/local/api-gateway.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import { canceledLinkEvents, sqsEvent, startReceiver } from '../support/webhooks.ts';

// The suite runs at WARN (vitest.config.ts); request lines are INFO. Set before the logger is built: each
// invocation resets it to the level it was built with.
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
});

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

describe('logs', () => {
  it('are JSON lines with the request id and the Lambda context that never contain keys, secrets or bodies; a success writes none at info level', async () => {
    const issued = await stack.issueKey('loggy', 'test');
    const lines: string[] = [];
    const capture = (chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    };
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
    try {
      const marker = 'SECRET-DESCRIPTION-MARKER';
      const created = await stack.request('POST', '/v1/payment-links', {
        key: issued.api_key,
        body: { amount: { value: '1', currency: 'EUR' }, description: marker, metadata: { card: marker } },
      });
      expect(created.status).toBe(201);
      await stack.request('POST', '/v1/payment-links', {
        key: issued.api_key,
        body: { description: marker },
      });
      await stack.request('GET', '/v1/payment-links/pl_x', { key: `${issued.api_key}x` });

      const output = lines.join('');
      expect(output).not.toContain(issued.api_key.slice(9));
      expect(output).not.toContain(issued.webhook_secret.slice(6));
      expect(output).not.toContain(marker);
      const records = output
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
      expect(records.length).toBeGreaterThanOrEqual(2);
      expect(records.every((record) => typeof record.request_id === 'string')).toBe(true);
      // The Lambda context of the invocation that wrote each line (Powertools Logger's injectLambdaContext).
      for (const record of records) {
        expect(record).toMatchObject({
          function_name: expect.stringMatching(/^(create|get)-payment-link$/),
          function_request_id: expect.any(String),
          cold_start: expect.any(Boolean),
        });
      }
      expect(records.find((record) => record.status === 401)?.function_name).toBe('get-payment-link');
      expect(new Set(records.map((record) => record.function_request_id)).size).toBe(2);
      expect(records.map((record) => record.status)).toEqual(expect.arrayContaining([422, 401]));
      // The 201 is at debug level: API Gateway's access log has its line (functions/http/request-log.ts).
      expect(records.map((record) => record.status)).not.toContain(201);
    } finally {
      stdout.mockRestore();
      stderr.mockRestore();
    }
  });

  it('carry the webhook attempts an operator may need (not delivered), not a line per delivered webhook', async () => {
    await stack.issueKey('loggy-hooks', 'test');
    const answering = await startReceiver();
    const failing = await startReceiver();
    failing.reply(500);
    const [delivered] = await canceledLinkEvents('loggy-hooks', answering.url, 1);
    const [refused] = await canceledLinkEvents('loggy-hooks', failing.url, 1);
    const lines: string[] = [];
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      const messages = [delivered, refused].map(
        (id) =>
          eventMessage({ id: id as string, account: 'loggy-hooks', mode: 'test', committed: true })
            .MessageBody,
      );
      await deliverWebhooks(sqsEvent(messages), lambdaContext('deliver-webhook', 30_000));
    } finally {
      stdout.mockRestore();
      await answering.close();
      await failing.close();
    }
    const attempts = lines
      .join('')
      .split('\n')
      .filter((line) => line.includes('"webhook attempt"'))
      .map((line) => JSON.parse(line));
    expect(attempts).toEqual([
      expect.objectContaining({ level: 'INFO', event_id: refused, status_code: 500, decision: 'pending' }),
    ]);
  });
});
