import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../lib/routes.ts';
import { functionLogicalId, policyStatementsOf, synthesize } from '../support/synth.ts';

let template: Template;
let templates: Record<string, Template>;

beforeAll(() => {
  ({ template, templates } = synthesize());
});

describe('the console in the CDK stack', () => {
  it('has a user pool nobody signs up to, with a second factor, a strong password policy and threat protection', () => {
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      MfaConfiguration: 'ON',
      EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
      UserPoolTier: 'PLUS',
      DeletionProtection: 'ACTIVE',
      Policies: {
        PasswordPolicy: Match.objectLike({
          MinimumLength: 12,
          RequireLowercase: true,
          RequireUppercase: true,
          RequireNumbers: true,
          RequireSymbols: true,
        }),
      },
      Schema: Match.arrayWith([
        Match.objectLike({ Name: 'account', AttributeDataType: 'String' }),
        Match.objectLike({ Name: 'role', AttributeDataType: 'String' }),
      ]),
    });
  });

  it('has a public app client on the authorization code grant, returning to the console, that cannot write the account or role', () => {
    template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      GenerateSecret: false,
      AllowedOAuthFlows: ['code'],
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthScopes: ['openid', 'email'],
      SupportedIdentityProviders: ['COGNITO'],
      CallbackURLs: [
        Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith(['/console/auth/callback'])]) }),
      ],
      // The console's sign-out returns here through Cognito's logout endpoint (CognitoIdentityProvider.signOutUrl).
      LogoutURLs: [
        Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith(['/console/sign-in'])]) }),
      ],
      ReadAttributes: Match.arrayWith(['custom:account', 'custom:role', 'email']),
      WriteAttributes: [],
      PreventUserExistenceErrors: 'ENABLED',
    });
    template.resourceCountIs('AWS::Cognito::UserPoolDomain', 1);
  });

  it('gives the console function the pool, its client and the sign-in domain, and no other function', () => {
    const functions = template.findResources('AWS::Lambda::Function');
    const consoleId = functionLogicalId(template, 'console');
    const withPool = Object.entries(functions)
      .filter(([, fn]) => fn.Properties.Environment?.Variables?.CONSOLE_USER_POOL_ID !== undefined)
      .map(([id]) => id);

    expect(withPool).toEqual([consoleId]);
    expect(Object.keys(functions[consoleId]?.Properties.Environment.Variables)).toEqual(
      expect.arrayContaining(['CONSOLE_USER_POOL_ID', 'CONSOLE_CLIENT_ID', 'CONSOLE_AUTH_DOMAIN']),
    );
  });

  it('routes every console path of the route table to the console function, but the overview to its own', () => {
    const consoleRoutes = routes.filter(
      (route) => route.path.startsWith('/console') && route.path !== '/console/overview',
    );
    const routeKeys = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map(
      (route) => route.Properties.RouteKey,
    );

    expect(consoleRoutes.length).toBeGreaterThan(10);
    expect(consoleRoutes.every((route) => route.handler === 'console')).toBe(true);
    expect(routeKeys).toEqual(
      expect.arrayContaining(consoleRoutes.map((route) => `${route.method} ${route.path}`)),
    );
  });

  it('gives the overview function its reads only: no key, no secret, no queue, no user pool', () => {
    const statements = policyStatementsOf(template, 'console-overview');
    const actions = statements.flatMap((statement: { Action: string | string[] }) =>
      [statement.Action].flat(),
    );
    const overview =
      template.findResources('AWS::Lambda::Function')[functionLogicalId(template, 'console-overview')];

    expect(actions.filter((action) => !/^(dynamodb|logs):/.test(action))).toEqual([]);
    expect(actions).not.toContain('dynamodb:Scan');
    expect(overview?.Properties.Environment.Variables.CONSOLE_USER_POOL_ID).toBeUndefined();
    expect(overview?.Properties.ReservedConcurrentExecutions).toBe(5);
  });

  it('stays well within the 500 resources of a stack: one invoke permission per function, not per route', () => {
    const resources = Math.max(
      ...Object.values(templates).map((stack) => Object.keys(stack.toJSON().Resources).length),
    );
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission'));
    const functions = Object.keys(template.findResources('AWS::Lambda::Function')).length;

    expect(resources).toBeLessThan(450);
    expect(permissions.length).toBeLessThanOrEqual(functions);
    for (const permission of permissions.filter(
      (p) => p.Properties.Principal === 'apigateway.amazonaws.com',
    )) {
      // The API's own routes, any stage, method and path: no other API may invoke the function.
      expect(JSON.stringify(permission.Properties.SourceArn)).toMatch(
        /"Ref":"ApiHttpApi\w+"\},"\/\*\/\*\/\*"/,
      );
    }
  });
});
