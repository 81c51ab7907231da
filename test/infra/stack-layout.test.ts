import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NestedStack, Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { toConstructId } from '../../lib/constructs/service-functions.ts';
import { FALLBACK_HANDLER, functions, type HandlerName, routes } from '../../lib/routes.ts';
import { surfaceOf } from '../../lib/surfaces.ts';
import { createTestApp, functionLogicalId, LARGEST, synthesize } from '../support/synth.ts';

/** The root's resources on `main` before the split, by type (how they were read: the file's `about`). */
const before = JSON.parse(readFileSync(join(import.meta.dirname, 'root-resources-before-split.json'), 'utf8'))
  .resources as Record<string, string[]>;

/**
 * What a surface's nested stack holds: each function and what belongs to it alone. Nothing of these keeps data
 * (a function's retained log group stays behind, with its month of lines, when its function moves).
 */
const FUNCTION_KINDS = new Set([
  'AWS::Lambda::Function',
  'AWS::IAM::Role',
  'AWS::IAM::Policy',
  'AWS::Logs::LogGroup',
  'AWS::ApiGatewayV2::Integration',
  'AWS::Lambda::Permission',
  'AWS::Lambda::EventSourceMapping',
]);

/** A resource of the root before the split that went with its function into a nested stack. */
const movedWithItsFunction = (type: string, logicalId: string) =>
  FUNCTION_KINDS.has(type) && (type !== 'AWS::Logs::LogGroup' || logicalId.startsWith('Functions'));

let synthesized: ReturnType<typeof synthesize>;
let root: Template;
const ROOT = 'PaymentLinks-prod';

beforeAll(() => {
  // Every opt-in on, as the record of the root before the split was read.
  synthesized = synthesize(LARGEST);
  root = synthesized.templates[ROOT] as Template;
});

describe('the layout of the CDK stack: a root and a nested stack per surface', () => {
  it('keeps in the root, under its logical id, every deployed resource that holds data or a name or key others use', () => {
    const kept = Object.entries(before).flatMap(([type, ids]) =>
      ids.filter((id) => !movedWithItsFunction(type, id)).map((id) => ({ id, type })),
    );
    const resources = root.toJSON().Resources as Record<string, { Type: string }>;

    expect(kept.filter(({ id, type }) => resources[id]?.Type !== type)).toEqual([]);
    expect(new Set(kept.map(({ type }) => type))).toEqual(
      new Set([
        'AWS::DynamoDB::GlobalTable',
        'AWS::SQS::Queue',
        'AWS::SQS::QueuePolicy',
        'AWS::KMS::Key',
        'AWS::SecretsManager::Secret',
        'AWS::Cognito::UserPool',
        'AWS::Cognito::UserPoolClient',
        'AWS::Cognito::UserPoolDomain',
        'AWS::ApiGatewayV2::Api',
        'AWS::ApiGatewayV2::Stage',
        'AWS::ApiGatewayV2::Route',
        'AWS::Logs::LogGroup',
        'AWS::WAFv2::WebACL',
        'AWS::CloudFront::Distribution',
        'AWS::Events::Rule',
        'AWS::CloudWatch::Alarm',
        'AWS::CloudWatch::Dashboard',
        'AWS::SNS::Topic',
        'AWS::SNS::TopicPolicy',
        'AWS::SNS::Subscription',
      ]),
    );
  });

  it('builds each function, and what belongs to it alone, in the nested stack of its surface', () => {
    const handlers = Object.keys(functions) as HandlerName[];
    const holds = (template: Template, handler: HandlerName) =>
      Object.keys(template.findResources('AWS::Lambda::Function')).some((id) =>
        id.startsWith(`Functions${toConstructId(handler)}Function`),
      );
    const stackOf = (handler: HandlerName) =>
      Object.entries(synthesized.templates)
        .filter(([, template]) => holds(template, handler))
        .map(([path]) => path);
    expect(Object.fromEntries(handlers.map((handler) => [handler, stackOf(handler)]))).toEqual(
      Object.fromEntries(handlers.map((handler) => [handler, [`${ROOT}/Surfaces/${surfaceOf[handler]}`]])),
    );
    const nested = Object.entries(synthesized.templates).filter(([path]) => path !== ROOT);
    expect(nested.length).toBeGreaterThan(1);
    for (const [path, template] of nested) {
      const types = Object.values(template.toJSON().Resources as Record<string, { Type: string }>).map(
        (resource) => resource.Type,
      );
      expect({ path, others: types.filter((type) => !FUNCTION_KINDS.has(type)) }).toEqual({
        path,
        others: [],
      });
    }
    for (const type of ['AWS::Lambda::Function', 'AWS::IAM::Role', 'AWS::ApiGatewayV2::Integration'])
      root.resourceCountIs(type, 0);
  });

  it("routes every route of the root to its handler's function, through the integration built beside it", () => {
    const { template } = synthesized;
    const integrations = template.findResources('AWS::ApiGatewayV2::Integration');
    const functionOf = (target: unknown): string => {
      const [, [, integration]] = (target as { 'Fn::Join': [string, [string, { Ref: string }]] })['Fn::Join'];
      return integrations[integration.Ref]?.Properties.IntegrationUri['Fn::GetAtt'][0];
    };
    const routesByKey = Object.fromEntries(
      Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map((route) => [
        route.Properties.RouteKey,
        route.Properties.Target,
      ]),
    );
    const expected = [
      ...routes.map((route) => [`${route.method} ${route.path}`, route.handler] as const),
      ...routes.map((route) => [`ANY ${route.path}`, FALLBACK_HANDLER] as const),
      ['$default', FALLBACK_HANDLER] as const,
    ];
    for (const [key, handler] of expected) {
      expect({ key, function: functionOf(routesByKey[key]) }).toEqual({
        key,
        function: functionLogicalId(template, handler),
      });
    }
    // In the root, a route names its integration by the output of the nested stack that built it.
    const [target] = Object.values(root.findResources('AWS::ApiGatewayV2::Route')).map((route) =>
      JSON.stringify(route.Properties.Target),
    );
    expect(target).toMatch(/"Fn::GetAtt":\["SurfacesLinksNestedStack\w+","Outputs\.\w+ApiIntegration\w+"\]/);
  });

  it('lets the API invoke each function behind it through one permission, for this API only', () => {
    const { template } = synthesized;
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission')).filter(
      (permission) => permission.Properties.Principal === 'apigateway.amazonaws.com',
    );
    const behindApi = [...new Set([...routes.map((route) => route.handler), FALLBACK_HANDLER])];
    expect(
      permissions.map((permission) => permission.Properties.FunctionName['Fn::GetAtt'][0]).sort(),
    ).toEqual(behindApi.map((handler) => functionLogicalId(template, handler)).sort());
    const [apiId] = Object.keys(template.findResources('AWS::ApiGatewayV2::Api'));
    for (const permission of permissions) {
      expect(JSON.stringify(permission.Properties.SourceArn)).toContain(`{"Ref":"${apiId}"},"/*/*/*"`);
    }
  });

  it('deploys as one stack: the app has one top-level stack, the surfaces nested in it', () => {
    const stacks = synthesized.app.node.findAll().filter(Stack.isStack);
    expect(
      stacks.filter((stack) => !NestedStack.isNestedStack(stack)).map((stack) => stack.node.path),
    ).toEqual([ROOT]);
    expect(
      stacks
        .filter(NestedStack.isNestedStack)
        .map((stack) => stack.node.path)
        .sort(),
    ).toEqual([...new Set(Object.values(surfaceOf))].map((surface) => `${ROOT}/Surfaces/${surface}`).sort());
  });

  it('runs cdk-nag AwsSolutions on the nested stacks too', () => {
    const { app, stack } = createTestApp();
    const surface = stack.node.findAll().find(NestedStack.isNestedStack) as NestedStack;
    new Queue(surface, 'CarelessQueue', { encryption: QueueEncryption.UNENCRYPTED });
    expect(() => app.synth()).toThrow(/AwsSolutions-SQS/);
  });
});
