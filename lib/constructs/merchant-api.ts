import { CfnOutput, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { allowedMethodsByPath, FALLBACK_HANDLER, functions, type HandlerName, routes } from '../routes.ts';
import { ServiceFunction } from './service-function.ts';

export interface MerchantApiProps {
  table: ITableV2;
  /** Stage-wide API Gateway throttling, before any request reaches a function. */
  throttle: { rateLimit: number; burstLimit: number };
  /** Overrides the checkout base (e.g. a custom domain); defaults to `<api url>/checkout`. */
  checkoutBase?: string;
  protectData: boolean;
}

/**
 * The HTTP API: one Lambda function per handler of the route table (lib/routes.ts), each allowed exactly the
 * DynamoDB actions the table lists for it. Other methods on known paths (`ANY <path>`) and unknown paths
 * (`$default`) reach the fallback handler, so even those answer in RFC 9457 form rather than API Gateway's
 * `{"message":"Not Found"}`.
 */
export class MerchantApi extends Construct {
  readonly api: HttpApi;
  readonly baseUrl: string;
  readonly checkoutBase: string;
  readonly functions = new Map<HandlerName, IFunction>();
  private readonly props: MerchantApiProps;

  constructor(scope: Construct, id: string, props: MerchantApiProps) {
    super(scope, id);
    this.props = props;
    const removalPolicy = props.protectData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    this.api = new HttpApi(this, 'HttpApi', { createDefaultStage: false, description: 'Payment links API' });
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy,
    });
    const stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.jsonWithStandardFields(),
      },
    });
    this.baseUrl = stage.url.replace(/\/$/, '');
    this.checkoutBase = props.checkoutBase ?? `${this.baseUrl}/checkout`;

    for (const route of routes) {
      this.api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: this.integration(route.handler),
      });
    }
    for (const path of allowedMethodsByPath().keys()) {
      this.api.addRoutes({
        path,
        methods: [HttpMethod.ANY],
        integration: this.integration(FALLBACK_HANDLER),
      });
    }
    new HttpRoute(this, 'DefaultRoute', {
      httpApi: this.api,
      routeKey: HttpRouteKey.DEFAULT,
      integration: this.integration(FALLBACK_HANDLER),
    });

    Validations.of(this).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Merchant routes authenticate the Bearer API key inside the function, which must answer 401 as RFC 9457 problem+json (an API Gateway authorizer cannot shape its 401); the fallback routes, checkout pages, PSP notifications and the OpenAPI document are public by design.',
    });

    new CfnOutput(scope, 'BaseUrl', { value: this.baseUrl, description: 'Base URL of the merchant API' });
    new CfnOutput(scope, 'CheckoutBase', {
      value: this.checkoutBase,
      description: 'Base of every checkout_url',
    });
  }

  /** The function behind `handler` (created once, shared by its routes) as a route integration. */
  private integration(handler: HandlerName): HttpLambdaIntegration {
    return new HttpLambdaIntegration(`${toConstructId(handler)}Integration`, this.functionFor(handler));
  }

  functionFor(handler: HandlerName): IFunction {
    const existing = this.functions.get(handler);
    if (existing) return existing;
    const { table, protectData } = this.props;
    const fn = new ServiceFunction(this, toConstructId(handler), {
      handler,
      environment: { TABLE_NAME: table.tableName, BASE_URL: this.baseUrl, CHECKOUT_BASE: this.checkoutBase },
      logRemovalPolicy: protectData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    }).function;
    const actions: readonly string[] = functions[handler].table;
    if (actions.length) {
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: actions.map((action) => `dynamodb:${action}`),
          resources: [table.tableArn, ...(actions.includes('Query') ? [`${table.tableArn}/index/*`] : [])],
        }),
      );
    }
    this.functions.set(handler, fn);
    return fn;
  }
}

const toConstructId = (handler: string) =>
  handler.replace(/(^|-)(\w)/g, (_match, _dash, letter: string) => letter.toUpperCase());
