import { Aws, CfnRule, Fn, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { EDGE_SECRET_HEADER } from '../../functions/http/client-address.ts';

export interface EdgeProtectionProps {
  api: IHttpApi;
  /**
   * Requests one client address may make to the buyers' pages (checkout, sandbox) in 5 minutes before AWS WAF
   * refuses it (429); PSP notifications get ten times as much. The WebACL is created here, which CloudFront
   * requires in us-east-1.
   */
  rateLimit?: number;
  /** An existing CloudFront-scope WebACL (made in us-east-1) to attach instead, for stacks in other regions. */
  webAclArn?: string;
}

/** WAF's window for rate-based rules, in seconds. */
const WINDOW_SECONDS = 300;
/** PSPs send notifications from a few addresses, however many buyers pay: they get more room than a buyer. */
const PSP_RATE_FACTOR = 10;

/**
 * Opt-in protection of the public routes from one flooding client (docs/security.md#cloudfront-and-aws-waf): a
 * CloudFront distribution in front of the HTTP API (which cannot take AWS WAF itself), with a WAF rate-based rule
 * per client IP on the buyers' pages and on PSP notifications. Nothing is cached: every request reaches the API
 * as before, with all its headers but Host.
 */
export class EdgeProtection extends Construct {
  readonly distribution: Distribution;
  /** `https://<distribution domain>`: the public base of the API and checkout pages behind it. */
  readonly url: string;
  /**
   * The value the distribution sends in `EDGE_SECRET_HEADER` with every request it passes on (replacing a
   * client's own), so that a function can tell a request that came through it from one sent to API Gateway's own
   * address, whose `CloudFront-Viewer-Address` anyone could have written (docs/security.md#the-client-behind-cloudfront).
   */
  readonly originSecret: Secret;
  /**
   * What the functions that tell clients apart by address read (functions/config.ts): the origin secret, as a
   * dynamic reference CloudFormation resolves at deploy time (the template never holds it).
   */
  readonly clientAddressEnvironment: Record<string, string>;

  constructor(scope: Construct, id: string, props: EdgeProtectionProps) {
    super(scope, id);
    let webAclArn = props.webAclArn;
    if (!webAclArn) {
      const rateLimit = props.rateLimit ?? 0;
      if (rateLimit < 10) throw new Error('edgeRateLimit must be at least 10 (AWS WAF minimum).');
      webAclArn = this.webAcl(rateLimit).attrArn;
      new CfnRule(this, 'WebAclRegion', {
        assertions: [
          {
            assert: Fn.conditionEquals(Aws.REGION, 'us-east-1'),
            assertDescription:
              'A CloudFront WebACL can only be created in us-east-1: deploy there, or pass edgeWebAclArn (docs/security.md).',
          },
        ],
      });
    }
    const stack = Stack.of(this);
    this.originSecret = new Secret(this, 'OriginSecret', {
      description: 'Sent by the CloudFront front with every request: the request came through it',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      // Nothing but the distribution and the functions hold it: a new deployment makes a new one.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const secret = this.originSecret.secretValue.unsafeUnwrap();
    this.clientAddressEnvironment = { EDGE_ORIGIN_SECRET: secret };
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Payment links: per-client limits in front of the HTTP API',
      httpVersion: HttpVersion.HTTP2_AND_3,
      webAclId: webAclArn,
      defaultBehavior: {
        origin: new HttpOrigin(`${props.api.apiId}.execute-api.${stack.region}.${stack.urlSuffix}`, {
          protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
          customHeaders: { [EDGE_SECRET_HEADER]: secret },
        }),
        allowedMethods: AllowedMethods.ALLOW_ALL,
        cachePolicy: CachePolicy.CACHING_DISABLED,
        // Every viewer header but Host (API Gateway routes its own address by it), and CloudFront's headers about
        // the viewer, `CloudFront-Viewer-Address` among them: a policy of our own can leave out Host or add
        // CloudFront's headers, not both.
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      },
    });
    this.url = `https://${this.distribution.distributionDomainName}`;
    Validations.of(this.originSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Resolved into the distribution and the functions at deploy time, so a rotation would not reach them: a new value is a new deployment. It tells requests through the front apart for the per-client budgets and the audit log, and guards no money.',
    });
    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason:
          'Buyers pay from anywhere: no country is refused by default (add geo restrictions per deployment).',
      },
      {
        id: 'AwsSolutions-CFR3',
        reason:
          'Every request that passes is logged by the API stage access log; what WAF refuses shows in its metrics and sampled requests. A logging bucket would hold the same twice.',
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          'The default CloudFront domain cannot pin a minimum TLS version (that needs a custom domain certificate, configured per deployment); the origin is reached over TLS 1.2 only.',
      },
    );
  }

  private webAcl(rateLimit: number): CfnWebACL {
    const visibility = (metricName: string) => ({
      cloudWatchMetricsEnabled: true,
      metricName,
      sampledRequestsEnabled: true,
    });
    const startsWith = (prefix: string) => ({
      byteMatchStatement: {
        fieldToMatch: { uriPath: {} },
        positionalConstraint: 'STARTS_WITH',
        searchString: prefix,
        textTransformations: [{ priority: 0, type: 'NONE' }],
      },
    });
    const perClient = (name: string, priority: number, limit: number, scopeDown: object) => ({
      name,
      priority,
      action: { block: { customResponse: { responseCode: 429 } } },
      statement: {
        rateBasedStatement: {
          limit,
          aggregateKeyType: 'IP',
          evaluationWindowSec: WINDOW_SECONDS,
          scopeDownStatement: scopeDown,
        },
      },
      visibilityConfig: visibility(name),
    });
    return new CfnWebACL(this, 'WebAcl', {
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('payment-links-edge'),
      rules: [
        perClient('buyer-pages-per-client', 0, rateLimit, {
          orStatement: { statements: [startsWith('/checkout/'), startsWith('/sandbox/')] },
        }),
        perClient('psp-notifications-per-client', 1, rateLimit * PSP_RATE_FACTOR, startsWith('/psp/')),
      ],
    });
  }
}
