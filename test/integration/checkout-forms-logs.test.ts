import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { paymentRepository } from '../../functions/dependencies.ts';
import { createLink } from '../support/checkout-helpers.ts';
import { capturedOutput } from '../support/log-capture.ts';
import { postOurForm } from '../support/navigate.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

// Every level, DEBUG included: the buyer's answers must reach no log line (docs/checkout.md#buyer-details). Set
// before the logger is built.
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
});

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

describe('the buyer’s answers in the logs', () => {
  it('never appear, whether refused or accepted', async () => {
    const issued = await stack.issueKey('quiet-forms', 'test');
    const link = await createLink(stack, issued.api_key, {
      collect: { email: 'required', phone: 'required', billing_address: 'required' },
      custom_fields: [{ key: 'secret', label: 'Secret', type: 'text' }],
    });
    const answers = {
      answers: '1',
      custom_secret: 'MARKER-ANSWER',
      email: 'marker.person@example.com',
      phone: '+31 6 87654321',
      billing_name: 'Marker Person',
      billing_line1: 'Markerstraat 42',
      billing_city: 'Markerdam',
      billing_postal_code: '9999 ZZ',
      billing_country: 'NL',
    };
    const output = await capturedOutput(async () => {
      expect((await postOurForm(link.checkout_url, { ...answers, email: 'marker.person@' })).status).toBe(
        422,
      );
      expect((await postOurForm(link.checkout_url, answers)).status).toBe(303);
    });
    const [payment] = await paymentRepository().listOfLink(link.id, 'test');
    expect(payment?.buyer).toMatchObject({ email: 'marker.person@example.com', phone: '+31687654321' });
    expect(output.length).toBeGreaterThan(0);
    for (const personal of [
      'MARKER-ANSWER',
      'marker.person',
      '87654321',
      'Marker Person',
      'Markerstraat',
      'Markerdam',
      '9999 ZZ',
    ]) {
      expect(output).not.toContain(personal);
    }
  });
});
