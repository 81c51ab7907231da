import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { PspContract } from '../../../../../test/support/psp-contract.ts';

/** The error body of the statuses the documents do not declare (401, 500), Mercado Pago's own. */
export const ERROR_BODY = {
  type: 'object',
  required: ['message', 'error', 'status'],
  properties: {
    message: { type: 'string' },
    error: { type: 'string' },
    status: { type: 'integer' },
    cause: { type: 'array' },
  },
};

/**
 * The refunds, which neither document describes: their shape as Mercado Pago's reference pages give it
 * (`POST /v1/payments/{id}/refunds`, `GET /v1/payments/{id}/refunds/{refund_id}`), checked by hand here.
 */
const REFUND_REQUEST = {
  type: 'object',
  additionalProperties: false,
  properties: { amount: { type: 'number', exclusiveMinimum: 0 } },
};
const REFUND = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'payment_id',
    'amount',
    'metadata',
    'source',
    'date_created',
    'unique_sequence_number',
    'refund_mode',
    'adjustment_amount',
    'status',
    'reason',
    'amount_refunded_to_payer',
  ],
  properties: {
    id: { type: 'integer' },
    payment_id: { type: 'integer' },
    amount: { type: 'number' },
    metadata: { type: 'object' },
    source: {
      type: 'object',
      required: ['id', 'name', 'type'],
      properties: {
        id: { type: 'string' },
        name: { type: 'string' },
        type: { enum: ['collector', 'operator', 'admin', 'bpp'] },
      },
    },
    date_created: { type: 'string', format: 'date-time' },
    unique_sequence_number: { type: ['string', 'null'] },
    refund_mode: { type: 'string' },
    adjustment_amount: { type: 'number' },
    status: { enum: ['approved', 'in_process', 'rejected', 'cancelled', 'authorized'] },
    reason: { type: ['string', 'null'] },
    amount_refunded_to_payer: { type: 'number' },
  },
};

/** The refund endpoints' hand-written contract (`REFUND_REQUEST`, `REFUND`), in the shape of the documents' own. */
export function refundContract(): PspContract {
  const ajv = new Ajv2020({ allErrors: true });
  addFormats.default(ajv);
  const request = ajv.compile(REFUND_REQUEST);
  const answer = ajv.compile(REFUND);
  const errors = ajv.compile(ERROR_BODY);
  const judged = (validate: typeof request, value: unknown, what: string) =>
    validate(value)
      ? []
      : (validate.errors ?? []).map((error) => `${what}${error.instancePath} ${error.message}`);
  return {
    checkRequest: ({ method, body }) =>
      method === 'POST'
        ? judged(request, body ?? {}, 'request body')
        : body === undefined
          ? []
          : ['takes no body'],
    checkResponse: ({ status, response }) =>
      judged(status < 300 ? answer : errors, response, `${status} answer`),
  };
}
