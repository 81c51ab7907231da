import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { apiKeyRepository, consoleStore } from '../../functions/dependencies.ts';
import type { AuditEntry } from '../../functions/domain/console-access.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { signInToConsole } from '../support/console.ts';
import { httpRequest, navigate } from '../support/navigate.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import { eventually } from '../support/webhooks.ts';

/**
 * Changes made through the API are in the account's audit log beside the console's (docs/console.md#audit-log),
 * naming the key that made them and what each target is, written before the change as the console's are.
 */
let stack: TestStack;
let key: IssuedApiKey;
/** What the log names the key by: its display prefix, the one its list shows, and its id. */
let keyName: string;

beforeAll(async () => {
  stack = await startTestStack({ schedules: false });
  key = await stack.issueKey('api-audited', 'test');
  keyName = `${(await apiKeyRepository().get(key.key_id))?.display_prefix} (${key.key_id})`;
});
afterEach(() => {
  documentClient().middlewareStack.remove(REFUSING);
});
afterAll(() => stack?.stop());

const REFUSING = 'refuse-audit-writes';
const audit = (): Promise<AuditEntry[]> => consoleStore().listAudit('api-audited', 100);
const send = (method: string, path: string, body?: unknown) =>
  stack.request(method, path, { key: key.api_key, ...(body === undefined ? {} : { body }) });

/** The table refuses every write of an audit entry. */
function refuseAuditWrites() {
  documentClient().middlewareStack.add(
    (next, context) => (args) => {
      const input = args.input as { Item?: { pk?: unknown } };
      if (
        String(context.commandName).startsWith('Put') &&
        String(input.Item?.pk).startsWith('CONSOLE_AUDIT#')
      ) {
        throw new Error('The table refused the write.');
      }
      return next(args);
    },
    { step: 'initialize', name: REFUSING },
  );
}

async function paidLink(amount: string) {
  const link = await createLink(stack, key.api_key, { amount: { value: amount, currency: 'EUR' } });
  await navigate(link.checkout_url);
  const session = (await storedLink(link.id)).psp_session;
  await httpRequest(`${stack.baseUrl}/sandbox/checkout/${session?.id}/pay`, { method: 'POST' });
  await eventually(async () => (await storedLink(link.id)).status === 'paid');
  return { linkId: link.id as string, paymentId: (await storedLink(link.id)).payment?.id as string };
}

describe('the audit log of changes made through the API', () => {
  it('records each change with the key that made it and what its target is, a failed one with its code', async () => {
    const { linkId, paymentId } = await paidLink('30.00');
    const other = await createLink(stack, key.api_key, {});

    const patched = await send('PATCH', `/v1/payment-links/${other.id}`, { metadata: { note: 'x' } });
    const refund = await send('POST', `/v1/payment-links/${linkId}/refunds`, {
      amount: { value: '10.00', currency: 'EUR' },
    });
    const missing = await send('POST', '/v1/payment-links/pl_000000000000000000000000/cancel');
    const entries = await audit();

    expect([patched.status, refund.status, missing.status]).toEqual([200, 201, 404]);
    const user = keyName;
    expect(
      entries.map(({ user, role, via, action, target, about, outcome, reason, mode }) => ({
        user,
        role,
        via,
        action,
        target,
        about,
        outcome,
        reason,
        mode,
      })),
    ).toEqual([
      {
        ...{ user, role: null, via: 'api', mode: 'test', action: 'link.cancel' },
        ...{
          target: 'pl_000000000000000000000000',
          about: undefined,
          outcome: 'failed',
          reason: 'not_found',
        },
      },
      {
        ...{ user, role: null, via: 'api', mode: 'test', action: 'refund.create', target: refund.body.id },
        ...{
          about: { amount: { value: '10.00', currency: 'EUR' }, of: paymentId },
          outcome: 'succeeded',
          reason: null,
        },
      },
      {
        ...{ user, role: null, via: 'api', mode: 'test', action: 'link.update', target: other.id },
        ...{ about: undefined, outcome: 'succeeded', reason: null },
      },
    ]);
  });

  it('shows them to admins, the key and each target in words', async () => {
    const { linkId, paymentId } = await paidLink('12.00');
    const refund = await send('POST', `/v1/payment-links/${linkId}/refunds`, {
      amount: { value: '2.50', currency: 'EUR' },
    });
    const admin = await signInToConsole(stack.baseUrl, 'api-audited', 'admin');

    const page = await admin.get('/console/audit');

    expect(page.text).toContain(`<td>API key ${keyName}</td>`);
    expect(page.text).toContain(`<td>refund ${refund.body.id} of €2.50 on payment ${paymentId}</td>`);
  });

  it('makes no change whose entry cannot be written', async () => {
    const link = await createLink(stack, key.api_key, { metadata: { note: 'before' } });
    refuseAuditWrites();

    const patched = await send('PATCH', `/v1/payment-links/${link.id}`, { metadata: { note: 'after' } });
    documentClient().middlewareStack.remove(REFUSING);

    expect(patched.status).toBe(500);
    expect((await send('GET', `/v1/payment-links/${link.id}`)).body.metadata).toEqual({ note: 'before' });
  });

  it('does not record creating a link, nor a read', async () => {
    const before = (await audit()).length;

    const link = await createLink(stack, key.api_key, {});
    await send('GET', `/v1/payment-links/${link.id}`);

    expect((await audit()).length).toBe(before);
  });
});
