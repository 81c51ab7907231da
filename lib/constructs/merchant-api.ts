import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  type CfnStage,
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { allowedMethodsByPath, FALLBACK_HANDLER, type HandlerName, routes } from '../routes.ts';
import { type ServiceFunctions, toConstructId } from './service-functions.ts';

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

  /** Adds every route of the route table, integrated with its handler's function. */
  addRoutes(functions: ServiceFunctions): void {
    const integrations = new Map<HandlerName, HttpLambdaIntegration>();
    const integration = (handler: HandlerName) => {
      let existing = integrations.get(handler);
      if (!existing) {
        // One invoke permission per function, for this API's routes, rather than one per route: a CloudFormation
        // stack holds at most 500 resources, and a route and its permission each are one (the console alone has 40).
        existing = new HttpLambdaIntegration(`${toConstructId(handler)}Integration`, functions.get(handler), {
          scopePermissionToRoute: false,
        });
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
