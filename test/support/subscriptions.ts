import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { connectionToItem } from '../../functions/adapters/dynamodb/connection-mapper.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { config } from '../../functions/config.ts';
import {
  pspConnectionRepository,
  sandboxMandateStore,
  subscriptionRepository,
} from '../../functions/dependencies.ts';
import type { Simulation } from '../../functions/domain/connection.ts';
import type { Subscription } from '../../functions/domain/subscription.ts';
import { subscriptionCharges } from '../../functions/psp-dependencies.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { runDue } from '../../functions/use-cases/subscription-charges.ts';
import { createLink, storedLink } from './checkout-helpers.ts';
import { addConnection } from './connections.ts';
import { eventually } from './eventually.ts';
import { httpRequest, navigate } from './navigate.ts';
import type { TestStack } from './test-stack.ts';
import type { Receiver } from './webhooks.ts';

/**
 * What the subscription test files share (docs/subscriptions.md): a fresh account per test with a stored sandbox
 * connection, a buyer who pays on the sandbox's page, the charge sweeper's use case run at a chosen time, and the
 * signed subscription webhooks a receiver got. The files start their stack without the sweepers' timers
 * (`startTestStack`): each test runs the sweeper's steps itself, at the times it chooses.
 */

export const MONTHLY = { interval: 'month', interval_count: 1 };

export type Payload = { type: string; data: Record<string, unknown> };

export const days = (from: string, count: number) =>
  new Date(Date.parse(from) + count * 86_400_000).toISOString();

/** The charge sweeper's run on one subscription, at `at`. */
export const runAt = (subscription: Subscription, at: string | Date) =>
  runDue({ ...subscriptionCharges(), now: () => new Date(at) }, subscription, new Date(at));

export const stored = async (id: string) => (await subscriptionRepository().get(id, 'test')) as Subscription;
export const chargesOf = (subscription: Subscription) =>
  sandboxMandateStore().chargesOf(subscription.mandate.reference);
/**
 * The subscription's mandate connection from now on simulates `simulate` (its stored item rewritten, as no API
 * changes a connection's simulation): a `fail` connection's PSP cannot be asked.
 */
export async function simulateAtMandate(subscription: Subscription, simulate: Simulation): Promise<void> {
  const state = await pspConnectionRepository().get(subscription.mandate.connection_id);
  if (!state) throw new Error(`no connection ${subscription.mandate.connection_id}`);
  await documentClient().send(
    new PutCommand({
      TableName: config().TABLE_NAME,
      Item: connectionToItem({ ...state.connection, simulate }),
    }),
  );
}
export const renewalsOf = (subscription: Subscription) =>
  subscriptionRepository().renewalsOf(subscription.id, 'test');

/** The buyer pays a link on the sandbox's page: our checkout opens the session, the sandbox takes the payment. */
export async function payOnSandbox(
  stack: TestStack,
  link: { id: string; checkout_url: string },
): Promise<void> {
  await navigate(link.checkout_url);
  const session = (await storedLink(link.id)).psp_session;
  if (!session) throw new Error(`no session opened for ${link.id}`);
  await httpRequest(`${stack.baseUrl}/sandbox/checkout/${session.id}/pay`, { method: 'POST' });
}

/** The helpers of one file's stack and receiver; `prefix` names its accounts apart from other files'. */
export function subscriptionWorld(world: () => { stack: TestStack; receiver: Receiver }, prefix: string) {
  let accounts = 0;

  /** A fresh account with a stored sandbox connection that renews as `simulate` says, and its key. */
  async function account(simulate: Simulation = 'ok'): Promise<IssuedApiKey & { account: string }> {
    const name = `${prefix}-${++accounts}`;
    await addConnection({ account: name, mode: 'test', provider: 'sandbox', name: 'Sandbox', simulate });
    return { ...(await world().stack.issueKey(name, 'test')), account: name };
  }

  /** The buyer pays the subscription link on the sandbox's page; answers the subscription it started. */
  async function subscribe(key: string, body: Record<string, unknown>): Promise<Subscription> {
    const { stack, receiver } = world();
    const link = await createLink(stack, key, { webhook_url: receiver.url, ...body });
    await payOnSandbox(stack, link);
    const listed = await eventually(async () => {
      const page = await stack.request('GET', `/v1/subscriptions?link_id=${link.id}`, { key });
      return page.body.data?.length === 1 && page.body.data[0];
    });
    return stored(listed.id);
  }

  /**
   * The subscription events the receiver got for `id`, in order: those signed with the account-mode's secret (the
   * receiver is every test account's: another account's webhooks do not verify).
   */
  function webhooksOf(key: IssuedApiKey, id: string): Payload[] {
    const verified = world().receiver.received.flatMap((webhook) => {
      try {
        const headers = webhook.headers as Record<string, string>;
        return [new Webhook(key.webhook_secret).verify(webhook.body, headers) as Payload];
      } catch {
        return [];
      }
    });
    return verified.filter((payload) => payload.type.startsWith('subscription.') && payload.data.id === id);
  }

  return { account, subscribe, webhooksOf };
}
