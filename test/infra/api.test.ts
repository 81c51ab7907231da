import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { functions, type HandlerName, isKeyless, routes } from '../../lib/routes.ts';
import { functionLogicalId, synthesize } from '../support/synth.ts';

let template: Template;

beforeAll(() => {
  ({ template } = synthesize());
});

describe('the CDK stack’s HTTP API and its limits', () => {
  it('routes every entry of the route table, plus ANY fallbacks per path and $default', () => {
    const routeKeys = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map(
      (route) => route.Properties.RouteKey,
    );
    for (const route of routes) expect(routeKeys).toContain(`${route.method} ${route.path}`);
    for (const path of new Set(routes.map((route) => route.path))) expect(routeKeys).toContain(`ANY ${path}`);
    expect(routeKeys).toContain('$default');
  });

  it("throttles the stage and writes access logs that name each request's function invocation", () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 },
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.anyValue() },
    });
    const [stage] = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'));
    const format = JSON.parse(stage?.Properties.AccessLogSettings.Format);
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      routeKey: '$context.routeKey',
      status: '$context.status',
      integrationRequestId: '$context.integration.requestId',
    });
  });

  it('throttles each public route on its own, with limits sized for buyers and PSPs, and the stage after the routes', () => {
    const stages = template.findResources('AWS::ApiGatewayV2::Stage');
    const [stage] = Object.values(stages);
    const publicKeys = routes.filter((route) => route.public).map((route) => `${route.method} ${route.path}`);
    expect(publicKeys).toEqual(
      expect.arrayContaining(['GET /checkout/{id}', 'POST /psp/{provider}/notifications']),
    );
    expect(Object.keys(stage?.Properties.RouteSettings).sort()).toEqual([...publicKeys].sort());
    for (const key of publicKeys) {
      expect(stage?.Properties.RouteSettings[key]).toEqual({
        ThrottlingRateLimit: 1000,
        ThrottlingBurstLimit: 2000,
      });
    }
    const routeIds = Object.entries(template.findResources('AWS::ApiGatewayV2::Route'))
      .filter(([, route]) => publicKeys.includes(route.Properties.RouteKey))
      .map(([logicalId]) => logicalId);
    expect(stage?.DependsOn).toEqual(expect.arrayContaining(routeIds));
  });

  it('takes the public routes’ limits from CDK context', () => {
    const { template: tuned } = synthesize({
      publicThrottleRateLimit: '300',
      publicThrottleBurstLimit: '600',
    });
    tuned.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      RouteSettings: Match.objectLike({
        'GET /checkout/{id}': { ThrottlingRateLimit: 300, ThrottlingBurstLimit: 600 },
      }),
    });
  });

  it('reserves concurrency for every function reachable without an API key, and for no merchant function', () => {
    const handlers = Object.keys(functions) as HandlerName[];
    expect(handlers.filter(isKeyless).sort()).toEqual(
      [
        'checkout-page',
        'checkout-qr',
        // Its sign-in pages answer anyone; a session is checked inside the function.
        'console',
        'console-overview',
        'get-openapi',
        'psp-notifications',
        'route-fallback',
        'sandbox-checkout',
        // A subscription's cancel link: the buyer follows it without signing in.
        'subscription-cancel-page',
      ].sort(),
    );
    const reserved = (stackTemplate: Template, handler: HandlerName) =>
      stackTemplate.findResources('AWS::Lambda::Function')[functionLogicalId(stackTemplate, handler)]
        ?.Properties.ReservedConcurrentExecutions;
    for (const handler of handlers) {
      const expected = isKeyless(handler)
        ? (functions[handler] as { reservedConcurrency?: number }).reservedConcurrency
        : undefined;
      if (isKeyless(handler))
        expect({ handler, expected }).toEqual({ handler, expected: expect.any(Number) });
      expect({ handler, reserved: reserved(template, handler) }).toEqual({ handler, reserved: expected });
    }
    expect(reserved(template, 'checkout-page')).toBe(100);
  });

  it('takes each reservation from CDK context, and reserves none with reservedConcurrency=off', () => {
    const { template: tuned } = synthesize({ checkoutPageReservedConcurrency: '300' });
    const { template: off } = synthesize({ reservedConcurrency: 'off' });

    const checkout = (stackTemplate: Template) =>
      stackTemplate.findResources('AWS::Lambda::Function')[functionLogicalId(stackTemplate, 'checkout-page')]
        ?.Properties;
    expect(checkout(tuned)?.ReservedConcurrentExecutions).toBe(300);
    expect(
      Object.values(off.findResources('AWS::Lambda::Function')).filter(
        (fn) => fn.Properties.ReservedConcurrentExecutions !== undefined,
      ),
    ).toEqual([]);
    expect(() => synthesize({ pspNotificationsReservedConcurrency: '0' })).toThrow(/positive integer/);
    expect(() => synthesize({ reservedConcurrency: 'on' })).toThrow(/reservedConcurrency/);
  });
});
