import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqsClient } from '../../functions/clients/sqs.ts';
import { EVENTS_MAX_RECEIVE_COUNT, eventsQueueVisibilitySeconds } from '../../lib/routes.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

describe('the local events queue', () => {
  it('is configured like the deployed one: visibility six times the consumer timeout, and the same redrive', async () => {
    const { Attributes } = await sqsClient().send(
      new GetQueueAttributesCommand({ QueueUrl: process.env.EVENTS_QUEUE_URL, AttributeNames: ['All'] }),
    );
    expect(Attributes?.VisibilityTimeout).toBe(String(eventsQueueVisibilitySeconds()));
    expect(eventsQueueVisibilitySeconds()).toBe(180);
    const redrive = JSON.parse(Attributes?.RedrivePolicy ?? '{}');
    expect(Number(redrive.maxReceiveCount)).toBe(EVENTS_MAX_RECEIVE_COUNT);
    expect(redrive.deadLetterTargetArn).toMatch(/payment-links-events-dlq$/);
  });
});

describe('a stopped local stack', () => {
  it('leaves the process environment as it found it', async () => {
    // Prepare
    const before = { TABLE_NAME: process.env.TABLE_NAME, EVENTS_QUEUE_URL: process.env.EVENTS_QUEUE_URL };
    const second = await startTestStack();
    const during = process.env.EVENTS_QUEUE_URL;
    // Act
    await second.stop();
    // Assess
    expect(during).not.toBe(before.EVENTS_QUEUE_URL);
    expect({ TABLE_NAME: process.env.TABLE_NAME, EVENTS_QUEUE_URL: process.env.EVENTS_QUEUE_URL }).toEqual(
      before,
    );
  });
});
