import { parse } from 'csv-parse/sync';
import { DynamoPaymentRepository } from '../../functions/adapters/dynamodb/payment-repository.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { config } from '../../functions/config.ts';
import { newId } from '../../functions/domain/ids.ts';
import { newPaymentId, type Payment } from '../../functions/domain/payment.ts';

/** The payment repository itself, without the outcome counting the functions wrap it in. */
export const storedPayments = () => new DynamoPaymentRepository(documentClient(), config().TABLE_NAME);

/** A settled payment of `account` in test mode, created at `created_at`, stored as checkout stores one. */
export async function seedPayment(account: string, fields: Partial<Payment> & { created_at: string }) {
  const payment: Payment = {
    id: newPaymentId(new Date(fields.created_at), false),
    link_id: newId('pl'),
    account,
    mode: 'test',
    connection_id: 'pc_books0000000000000000000001',
    provider: 'sandbox',
    status: 'succeeded',
    amount: { value: '10.00', currency: 'EUR' },
    provider_reference: 'ref',
    failure: null,
    session_id: null,
    session_expires_at: null,
    next_check_at: null,
    checks: 0,
    updated_at: fields.created_at,
    version: 1,
    ...fields,
  };
  await storedPayments().save(payment);
  return payment;
}

/** A CSV body as records keyed by its header row, parsed by an RFC 4180 parser. */
export const csvRecords = (text: string): Record<string, string>[] => parse(text, { columns: true });
