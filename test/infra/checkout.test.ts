import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { type FunctionDefinition, functions, type HandlerName } from '../../lib/routes.ts';
import { policyStatementsOf, synthesize } from '../support/synth.ts';

let template: Template;
let violations: unknown[];

beforeAll(() => {
  ({ template, violations } = synthesize());
});

const statementsOf = (handler: HandlerName): { Action: string | string[]; Resource: unknown }[] =>
  policyStatementsOf(template, handler);

const secretStatements = (handler: HandlerName) =>
  statementsOf(handler).filter((statement) =>
    [statement.Action].flat().some((action) => action.startsWith('secretsmanager:')),
  );

describe('checkout on AWS', () => {
  it('still passes cdk-nag AwsSolutions with no unacknowledged finding', () => {
    expect(violations).toEqual([]);
  });

  it('routes the checkout page (GET and HEAD), its return page, PSP notifications and the sandbox pages', () => {
    const routeKeys = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map(
      (route) => route.Properties.RouteKey,
    );
    expect(routeKeys).toEqual(
      expect.arrayContaining([
        'GET /checkout/{id}',
        'HEAD /checkout/{id}',
        'GET /checkout/{id}/complete',
        'POST /psp/{provider}/notifications',
        'GET /sandbox/checkout/{id}',
        'POST /sandbox/checkout/{id}/pay',
        'POST /sandbox/checkout/{id}/decline',
      ]),
    );
  });

  it('generates the sandbox signing secret in Secrets Manager', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.objectLike({ PasswordLength: 64, ExcludePunctuation: true }),
    });
    template.hasResource('AWS::SecretsManager::Secret', { DeletionPolicy: 'Retain' });
  });

  it('passes secret names, never values, to the functions', () => {
    const lambdas = Object.values(template.findResources('AWS::Lambda::Function'));
    for (const lambda of lambdas) {
      const variables = lambda.Properties.Environment.Variables;
      expect(variables.SANDBOX_SECRET_NAME.Ref).toMatch(/SandboxSigningSecret/);
      expect(variables.PSP_SECRET_PREFIX).toBe('payment-links/prod/psp/');
      expect(JSON.stringify(variables)).not.toMatch(/sk_(live|test)_|whsec_/);
    }
    template.hasOutput('PspSecretPrefix', { Value: 'payment-links/prod/psp/' });
  });

  it('lets exactly the functions that need a secret read it with GetSecretValue, and nothing more', () => {
    for (const [handler, definition] of Object.entries(functions) as [HandlerName, FunctionDefinition][]) {
      const statements = secretStatements(handler);
      if (!definition.secrets?.length) {
        expect(statements, handler).toEqual([]);
        continue;
      }
      expect(statements, handler).toHaveLength(1);
      const [statement] = statements;
      expect(statement?.Action).toBe('secretsmanager:GetSecretValue');
      const resources = JSON.stringify(statement?.Resource);
      expect(resources.includes('SandboxSigningSecret'), handler).toBe(
        definition.secrets.includes('sandbox'),
      );
      expect(resources.includes(':secret:payment-links/prod/psp/*'), handler).toBe(
        definition.secrets.includes('psp'),
      );
    }
  });

  it('lets the notification function send webhook events, and the page functions not', () => {
    const sends = (handler: HandlerName) =>
      statementsOf(handler).some((statement) => [statement.Action].flat().includes('sqs:SendMessage'));
    expect(sends('psp-notifications')).toBe(true);
    expect(sends('checkout-page')).toBe(false);
    expect(sends('sandbox-checkout')).toBe(false);
  });
});
