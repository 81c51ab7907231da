import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { EDGE_SECRET_HEADER } from '../../functions/http/client-address.ts';
import { functions } from '../../lib/routes.ts';
import { functionLogicalId, synthesize } from '../support/synth.ts';

let plain: Template;
let protectedStack: ReturnType<typeof synthesize>;

beforeAll(() => {
  plain = synthesize().template;
  protectedStack = synthesize({ edgeRateLimit: '300' });
});

describe('CloudFront and AWS WAF in front of the public routes (opt-in)', () => {
  it('adds nothing unless asked', () => {
    plain.resourceCountIs('AWS::CloudFront::Distribution', 0);
    plain.resourceCountIs('AWS::WAFv2::WebACL', 0);
  });

  it('limits each client address on the buyers’ pages and, ten times higher, on PSP notifications', () => {
    const { template } = protectedStack;
    const startsWith = (prefix: string) => ({
      ByteMatchStatement: Match.objectLike({ PositionalConstraint: 'STARTS_WITH', SearchString: prefix }),
    });
    template.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'CLOUDFRONT',
      DefaultAction: { Allow: {} },
      Rules: [
        Match.objectLike({
          Action: { Block: { CustomResponse: { ResponseCode: 429 } } },
          Statement: {
            RateBasedStatement: {
              Limit: 300,
              AggregateKeyType: 'IP',
              EvaluationWindowSec: 300,
              ScopeDownStatement: {
                OrStatement: { Statements: [startsWith('/checkout/'), startsWith('/sandbox/')] },
              },
            },
          },
        }),
        Match.objectLike({
          Statement: {
            RateBasedStatement: Match.objectLike({ Limit: 3000, ScopeDownStatement: startsWith('/psp/') }),
          },
        }),
      ],
    });
  });

  it('puts an uncached distribution with that WebACL before the API, and publishes the API and checkout under it', () => {
    const { template } = protectedStack;
    const [aclId] = Object.keys(template.findResources('AWS::WAFv2::WebACL'));
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        WebACLId: { 'Fn::GetAtt': [aclId, 'Arn'] },
        DefaultCacheBehavior: Match.objectLike({
          AllowedMethods: Match.arrayWith(['GET', 'HEAD', 'PATCH', 'POST']),
          ViewerProtocolPolicy: 'redirect-to-https',
          CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad', // CachingDisabled
        }),
        Origins: [
          Match.objectLike({ CustomOriginConfig: Match.objectLike({ OriginProtocolPolicy: 'https-only' }) }),
        ],
      }),
    });
    const [distributionId] = Object.keys(template.findResources('AWS::CloudFront::Distribution'));
    const environments = Object.values(template.findResources('AWS::Lambda::Function')).map(
      (fn) => fn.Properties.Environment.Variables,
    );
    for (const variables of environments) {
      expect(JSON.stringify(variables.CHECKOUT_BASE)).toContain(distributionId);
      expect(JSON.stringify(variables.BASE_URL)).toContain(distributionId);
    }
    expect(JSON.stringify(template.findOutputs('BaseUrl'))).toContain(distributionId);
  });

  it("tells the functions that count clients by address the front's origin secret, which it sends with every request", () => {
    const { template } = protectedStack;
    const [secretId] = Object.keys(template.findResources('AWS::SecretsManager::Secret')).filter((id) =>
      id.startsWith('EdgeOriginSecret'),
    );
    const distribution = Object.values(template.findResources('AWS::CloudFront::Distribution'))[0];
    const config = distribution?.Properties.DistributionConfig;
    const sent = config.Origins[0].OriginCustomHeaders;
    const lambdas = template.findResources('AWS::Lambda::Function');
    const secretOf = (handler: string) =>
      lambdas[functionLogicalId(template, handler)]?.Properties.Environment.Variables.EDGE_ORIGIN_SECRET;
    const readers = Object.entries(functions)
      .filter(([, definition]) => 'clientAddress' in definition && definition.clientAddress)
      .map(([handler]) => handler);

    expect(secretId).toBeDefined();
    expect(sent).toEqual([{ HeaderName: EDGE_SECRET_HEADER, HeaderValue: expect.anything() }]);
    // A dynamic reference to the secret, resolved at deploy time: the template never holds the value.
    expect(JSON.stringify(sent[0].HeaderValue)).toMatch(new RegExp(`resolve:secretsmanager:.*${secretId}`));
    expect(readers.sort()).toEqual(['checkout-page', 'console']);
    for (const handler of readers) expect(secretOf(handler)).toEqual(sent[0].HeaderValue);
    expect(secretOf('create-payment-link')).toBeUndefined();
    // AllViewerExceptHostHeader: every viewer header but Host, and CloudFront's viewer headers, among them
    // CloudFront-Viewer-Address.
    expect(config.DefaultCacheBehavior.OriginRequestPolicyId).toBe('b689b0a8-53d0-40ab-baf2-68738e2966ac');
  });

  it('gives no function an origin secret without the front: nothing then believes CloudFront-Viewer-Address', () => {
    const variables = Object.values(plain.findResources('AWS::Lambda::Function')).map(
      (fn) => fn.Properties.Environment.Variables,
    );
    expect(variables.filter((names) => 'EDGE_ORIGIN_SECRET' in names)).toEqual([]);
  });

  it('refuses to deploy the WebACL outside us-east-1, where CloudFront cannot use it', () => {
    const rules = protectedStack.template.toJSON().Rules as Record<string, { Assertions: unknown[] }>;
    expect(JSON.stringify(Object.values(rules))).toContain('us-east-1');
  });

  it('passes cdk-nag AwsSolutions with the distribution and WebACL', () => {
    expect(protectedStack.violations).toEqual([]);
  });

  it('attaches an existing WebACL instead, for stacks in other regions', () => {
    const arn = 'arn:aws:wafv2:us-east-1:123456789012:global/webacl/payment-links/abc';
    const { template, violations } = synthesize({ edgeWebAclArn: arn });
    template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({ WebACLId: arn }),
    });
    expect(violations).toEqual([]);
  });
});
