import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { logger } from '../../functions/logger.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
  logger.setLogLevel('INFO'); // the suite runs at WARN (vitest.config.ts); request lines are INFO
});
afterAll(() => stack.stop());

describe('logs', () => {
  it('are JSON lines with the request id that never contain keys, secrets or bodies', async () => {
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
      expect(records.length).toBeGreaterThanOrEqual(3);
      expect(records.every((record) => typeof record.request_id === 'string')).toBe(true);
      expect(records.map((record) => record.status)).toEqual(expect.arrayContaining([201, 422, 401]));
    } finally {
      stdout.mockRestore();
      stderr.mockRestore();
    }
  });
});
