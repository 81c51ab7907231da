import { RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  type CfnStage,
  HttpApi,
  HttpIntegration,
  HttpIntegrationType,
  HttpMethod,
  HttpRoute,
  HttpRouteIntegration,
  type HttpRouteIntegrationConfig,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
  PayloadFormatVersion,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { allowedMethodsByPath, FALLBACK_HANDLER, type HandlerName, routes } from '../routes.ts';
import type { ServiceFunctions } from './service-functions.ts';

export interface Throttle {
  /** Requests per second, sustained. */
  rateLimit: number;
  /** Requests at once, above the sustained rate, for a few seconds. */
  burstLimit: number;
}

export interface MerchantApiProps {
  /** API Gateway throttling of each merchant route, before any request reaches a function. */
  throttle: Throttle;
  /** Throttling of each public route (checkout, sandbox, PSP notifications), sized for buyers' traffic. */
  publicThrottle: Throttle;
  protectData: boolean;
}

/**
 * The HTTP API and its throttled, access-logged `$default` stage. `addRoutes` integrates every route of the
 * route table (lib/routes.ts) with its handler's function. Other methods on known paths (`ANY <path>`) and
 * unknown paths (`$default`) reach the fallback handler, so even those answer in RFC 9457 form rather than API Gateway's
 * `{"message":"Not Found"}`.
 */
export class MerchantApi extends Construct {
  readonly api: HttpApi;
  readonly baseUrl: string;
  private readonly stage: HttpStage;
  private readonly publicThrottle: Throttle;

  constructor(scope: Construct, id: string, props: MerchantApiProps) {
    super(scope, id);
    const removalPolicy = props.protectData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    this.api = new HttpApi(this, 'HttpApi', { createDefaultStage: false, description: 'Payment links API' });
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy,
    });
    this.publicThrottle = props.publicThrottle;
    const stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        // HTTP API context variables (the REST-API standard fields would miss the route and integration errors).
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            requestTime: '$context.requestTime',
            httpMethod: '$context.httpMethod',
            routeKey: '$context.routeKey',
            path: '$context.path',
            status: '$context.status',
            protocol: '$context.protocol',
            responseLength: '$context.responseLength',
            responseLatency: '$context.responseLatency',
            integrationLatency: '$context.integrationLatency',
            integrationError: '$context.integrationErrorMessage',
            // The function's request id, its lines' `function_request_id` (docs/operations.md#logs).
            integrationRequestId: '$context.integration.requestId',
          }),
        ),
      },
    });
    this.stage = stage;
    this.baseUrl = stage.url.replace(/\/$/, '');

    Validations.of(this).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Merchant routes authenticate the Bearer API key inside the function, which must answer 401 as RFC 9457 problem+json (an API Gateway authorizer cannot shape its 401); the fallback routes, checkout pages, PSP notifications and the OpenAPI document are public by design.',
    });
  }

  /**
   * Adds every route of the route table, integrated with its handler's function. The routes stay in this stack
   * whatever the function's: a route key is unique in its API, so a route moved to another stack would be created
   * before its old self is deleted, and refused (docs/operations.md#stack-size).
   */
  addRoutes(functions: ServiceFunctions): void {
    const integrations = new Map<HandlerName, FunctionIntegration>();
    const integration = (handler: HandlerName) => {
      let existing = integrations.get(handler);
      if (!existing) {
        existing = new FunctionIntegration(this.api, functions.get(handler));
        integrations.set(handler, existing);
      }
      return existing;
    };
    // CloudFormation's own JSON (the property is untyped, so no key conversion happens).
    const publicRouteSettings: Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }> =
      {};
    for (const route of routes) {
      const added = this.api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: integration(route.handler),
      });
      if (route.public) {
        publicRouteSettings[`${route.method} ${route.path}`] = {
          ThrottlingRateLimit: this.publicThrottle.rateLimit,
          ThrottlingBurstLimit: this.publicThrottle.burstLimit,
        };
        // A stage's route settings may only name routes that exist already.
        for (const created of added) this.stage.node.addDependency(created);
      }
    }
    (this.stage.node.defaultChild as CfnStage).routeSettings = publicRouteSettings;
    for (const path of allowedMethodsByPath().keys()) {
      this.api.addRoutes({
        path,
        methods: [HttpMethod.ANY],
        integration: integration(FALLBACK_HANDLER),
      });
    }
    new HttpRoute(this, 'DefaultRoute', {
      httpApi: this.api,
      routeKey: HttpRouteKey.DEFAULT,
      integration: integration(FALLBACK_HANDLER),
    });
  }
}

/**
 * A function's integration with the API, built beside the function (in its surface's nested stack) with the
 * function's one invoke permission for this API's routes, rather than one per route: a CloudFormation stack holds
 * at most 500 resources (the console alone has 40 routes). CDK's HttpLambdaIntegration would build both in the
 * scope of the first route bound to it, the root stack; a route needs only the integration's id.
 */
class FunctionIntegration extends HttpRouteIntegration {
  private readonly config: HttpRouteIntegrationConfig;
  private readonly integrationId: string;

  constructor(api: HttpApi, fn: LambdaFunction) {
    super('ApiIntegration');
    this.config = {
      type: HttpIntegrationType.AWS_PROXY,
      uri: fn.functionArn,
      payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
    };
    this.integrationId = new HttpIntegration(fn, 'ApiIntegration', {
      httpApi: api,
      integrationType: this.config.type,
      integrationUri: this.config.uri,
      payloadFormatVersion: this.config.payloadFormatVersion,
    }).integrationId;
    fn.addPermission('ApiInvoke', {
      principal: new ServicePrincipal('apigateway.amazonaws.com'),
      // Any stage, method and path of this API, and no other API.
      sourceArn: Stack.of(api).formatArn({
        service: 'execute-api',
        resource: api.apiId,
        resourceName: '*/*/*',
      }),
    });
  }

  /**
   * What `HttpRoute` asks of its integration (CDK's hook, public in its typings): here the id of the integration
   * built with the function, for every route bound to it. test/infra/stack-layout.test.ts follows each route to its
   * function, so a change of the hook in aws-cdk-lib fails there.
   */
  override _bindToRoute(): { readonly integrationId: string } {
    return { integrationId: this.integrationId };
  }

  /** The integration's settings; CDK calls this only from the `_bindToRoute` replaced above. */
  override bind(): HttpRouteIntegrationConfig {
    return this.config;
  }
}
