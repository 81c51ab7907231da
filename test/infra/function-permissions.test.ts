import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { tableSchema } from '../../functions/adapters/dynamodb/table-schema.ts';
import { functions, type HandlerName, tableActionsOf } from '../../lib/routes.ts';
import { policyStatementsOf, synthesize } from '../support/synth.ts';

let template: Template;

beforeAll(() => {
  ({ template } = synthesize());
});

describe('the CDK stack’s function permissions', () => {
  it('adds what the merchant-API middleware needs: key lookups and rate limits, and idempotency on POST routes', () => {
    expect(tableActionsOf('get-payment-link')).toEqual(['GetItem', 'UpdateItem']);
    expect(tableActionsOf('redeliver-event')).toEqual([
      'DeleteItem',
      'GetItem',
      'PutItem',
      'Query',
      'UpdateItem',
    ]);
    expect(tableActionsOf('route-fallback')).toEqual([]);
  });

  it('lets each function do exactly the DynamoDB actions the route table lists, on this table only', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    const dynamoStatements = policies
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement)
      .filter(
        (statement) =>
          statement.Effect === 'Allow' &&
          [statement.Action].flat().some((action: string) => action.startsWith('dynamodb:')),
      );
    const expected = (Object.keys(functions) as HandlerName[])
      .map((handler) => tableActionsOf(handler).map((action) => `dynamodb:${action}`))
      .filter((actions) => actions.length);
    const actual = dynamoStatements.map((statement) => [statement.Action].flat().sort());
    expect(actual).toEqual(expect.arrayContaining(expected));
    expect(actual).toHaveLength(expected.length);
    for (const statement of dynamoStatements) {
      expect(JSON.stringify(statement.Resource)).toMatch(/LinksTable/);
      expect(JSON.stringify(statement.Action)).not.toContain('*');
    }
  });

  it('lets every function that reaches PSP connections find a stored one by its id: Query on listings, then GetItem', () => {
    const pspHandlers = (Object.keys(functions) as HandlerName[]).filter((handler) =>
      (functions[handler] as { secrets?: readonly string[] }).secrets?.includes('psp'),
    );
    expect(pspHandlers).toEqual(
      expect.arrayContaining(['checkout-page', 'update-payment-link', 'cancel-payment-link', 'expire-links']),
    );
    for (const handler of pspHandlers) {
      const queries = policyStatementsOf(template, handler).filter(
        (statement: { Effect: string; Action: unknown }) =>
          statement.Effect === 'Allow' && [statement.Action].flat().includes('dynamodb:Query'),
      );
      expect({ handler, granted: queries.length }).toEqual({ handler, granted: 1 });
      expect(JSON.stringify(queries[0].Resource)).toContain(`/index/${tableSchema.gsi1.indexName}`);
      // The index holds the connection's key only; the connection itself is read from the table.
      expect([queries[0].Action].flat()).toContain('dynamodb:GetItem');
    }
  });

  it('denies the public-facing functions every API-key record and signing secret, by partition key', () => {
    const publicFacing = [
      'checkout-page',
      'psp-notifications',
      'sandbox-checkout',
      'subscription-cancel-page',
    ] as const;
    for (const handler of Object.keys(functions) as HandlerName[]) {
      const denials = policyStatementsOf(template, handler).filter(
        (statement: { Effect: string }) => statement.Effect === 'Deny',
      );
      if (!(publicFacing as readonly string[]).includes(handler)) {
        expect({ handler, denials }).toEqual({ handler, denials: [] });
        continue;
      }
      expect(denials).toHaveLength(1);
      const [denial] = denials;
      expect([denial.Action].flat().sort()).toEqual(
        tableActionsOf(handler).map((action) => `dynamodb:${action}`),
      );
      expect(denial.Condition).toEqual({
        'ForAnyValue:StringLike': {
          'dynamodb:LeadingKeys': [
            'APIKEY#*',
            'ACCOUNT#*#APIKEYS',
            'SIGNING_SECRET#*',
            'WEBHOOK_ENDPOINTS#*',
            'CONSOLE_*',
          ],
        },
      });
      expect(JSON.stringify(denial.Resource)).toMatch(/LinksTable/);
    }
  });

  it('lets only the delivery function open signing secrets, and the endpoint functions seal new ones, for signing secrets only; and rotates the key', () => {
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    const kmsActions = (handler: HandlerName) =>
      policyStatementsOf(template, handler).flatMap((statement: { Action: string | string[] }) =>
        [statement.Action].flat().filter((action) => action.startsWith('kms:')),
      );
    const decrypting = (Object.keys(functions) as HandlerName[]).filter((handler) =>
      kmsActions(handler).includes('kms:Decrypt'),
    );
    expect(decrypting).toEqual(['deliver-webhook']);
    const sealing = (Object.keys(functions) as HandlerName[]).filter(
      (handler) => handler !== 'deliver-webhook' && kmsActions(handler).length,
    );
    expect(sealing.sort()).toEqual(['console', 'create-webhook-endpoint', 'rotate-webhook-endpoint-secret']);
    for (const handler of sealing) {
      expect(policyStatementsOf(template, handler)).toContainEqual(
        expect.objectContaining({
          Action: 'kms:GenerateDataKey',
          Condition: { StringEquals: { 'kms:EncryptionContext:purpose': 'webhook-signing-secret' } },
        }),
      );
    }
    const [statement] = policyStatementsOf(template, 'deliver-webhook').filter(
      (candidate: { Action: string | string[] }) => [candidate.Action].flat().includes('kms:Decrypt'),
    );
    expect(statement).toMatchObject({
      Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
      Effect: 'Allow',
      Condition: { StringEquals: { 'kms:EncryptionContext:purpose': 'webhook-signing-secret' } },
    });
  });
});
