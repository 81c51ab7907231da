import { z } from 'zod';
import { MAX_EXPORT_DAYS } from '../../functions/domain/books.ts';
import { MAX_CSV_BYTES } from '../../functions/http/api/books-response.ts';
import {
  CancelLinkSchema,
  SubscriptionId,
  SubscriptionListSchema,
  SubscriptionSchema,
} from '../../functions/http/api/subscription-response-schemas.ts';
import {
  cancelSubscriptionRequest,
  listSubscriptionsQuery,
  updateSubscriptionRequest,
} from '../../functions/http/api/subscription-schemas.ts';
import { emptyRequest } from '../../functions/http/validate.ts';
import type { OperationSpec } from './operation-spec.ts';

const params = z.object({ id: SubscriptionId.meta({ description: 'The subscription id.' }) });
const subscription = (description: string) => ({ status: 200, description, schema: SubscriptionSchema });

/** The subscriptions' operations (docs/subscriptions.md), in the order of docs/api.md. */
export const subscriptionOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/v1/subscriptions',
    operationId: 'listSubscriptions',
    summary: 'List subscriptions',
    description: `The API key's (account, mode) subscriptions, newest first, filtered, one page at a time (docs/subscriptions.md). Filters combine; \`status\`, \`link_id\` and \`connection_id\` filter what is read, so a page may hold fewer than \`limit\` with a \`next_cursor\` to continue. With \`Accept: text/csv\` the same query answers CSV (RFC 4180), as the books do: \`created[gte]\` and \`created[lt]\` are then required, at most ${MAX_EXPORT_DAYS} days apart (docs/api.md#csv-exports).`,
    auth: true,
    query: listSubscriptionsQuery(),
    success: {
      status: 200,
      description: 'A page of subscriptions, or the CSV of the period.',
      schema: SubscriptionListSchema,
      csv: {
        description:
          'A header row, then one row per subscription; amounts in major units as decimal strings.',
        maxBytes: MAX_CSV_BYTES,
      },
    },
    errors: ['validation_failed'],
  },
  {
    method: 'get',
    path: '/v1/subscriptions/{id}',
    operationId: 'getSubscription',
    summary: 'Retrieve a subscription',
    description: 'The subscription: its status, current period, next charge, mandate and latest failure.',
    auth: true,
    params,
    success: subscription('The subscription.'),
    errors: ['not_found'],
  },
  {
    method: 'patch',
    path: '/v1/subscriptions/{id}',
    operationId: 'updateSubscription',
    summary: 'Update a subscription',
    description:
      'Replaces `metadata`, and sets the `amount` each period charges from the next one not yet charged (a charge under way and a period being collected keep theirs). A canceled or ended subscription is `invalid_state`.',
    auth: true,
    params,
    body: {
      schema: updateSubscriptionRequest(),
      required: true,
      mediaTypes: ['application/merge-patch+json', 'application/json'],
    },
    success: subscription('The subscription after the change.'),
    errors: ['not_found', 'validation_failed', 'invalid_state'],
  },
  {
    method: 'post',
    path: '/v1/subscriptions/{id}/cancel',
    operationId: 'cancelSubscription',
    summary: 'Cancel a subscription',
    description:
      'Now (default: `subscription.canceled` at once, nothing more charged), or with `at_period_end` when the period paid ends. A `past_due` subscription is canceled now either way, and its update link is canceled too (a link whose PSP session cannot be ended yet is canceled by the charge sweeper later; the answer is the same); a payment that still lands on that link is refunded in full (docs/subscriptions.md#update-links). A canceled subscription is answered as it is; an ended one is `invalid_state`.',
    auth: true,
    params,
    body: { schema: cancelSubscriptionRequest(), required: false },
    success: subscription('The subscription after the cancel.'),
    errors: ['not_found', 'validation_failed', 'invalid_state'],
  },
  {
    method: 'post',
    path: '/v1/subscriptions/{id}/cancel-link',
    operationId: 'createSubscriptionCancelLink',
    summary: "Create a buyer's cancel link",
    description:
      'A page of ours where the buyer cancels the subscription at the end of the period paid, without signing in, once, within 30 days (docs/subscriptions.md#cancel-links). Send its `url` to the buyer.',
    auth: true,
    params,
    body: { schema: emptyRequest(), required: false },
    success: { status: 201, description: 'The cancel link.', schema: CancelLinkSchema },
    errors: ['not_found', 'invalid_state'],
  },
  {
    method: 'post',
    path: '/v1/test-helpers/subscriptions/{id}/advance',
    operationId: 'advanceSubscription',
    summary: "Advance a test subscription's clock",
    description:
      "Test mode only (a live key's answer is `not_found`): moves the subscription to what is next due (a renewal, a retry, its end) and runs it at once, as the sweeper would then (docs/subscriptions.md#time-under-test). One with nothing scheduled is `invalid_state`; when the PSP that holds the mandate does not answer, `psp_unavailable`, and the charge stays due, sent again under its key by the next call or sweep.",
    auth: true,
    params,
    body: { schema: emptyRequest(), required: false },
    success: subscription('The subscription after the step.'),
    errors: ['not_found', 'invalid_state', 'psp_unavailable'],
  },
];
