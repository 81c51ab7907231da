import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { METRICS } from '../../functions/metrics.ts';
import { synthesize } from '../support/synth.ts';

const TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:on-call';
const NAMESPACE = 'PaymentLinks-prod';

let plain: ReturnType<typeof synthesize>;
let withTopic: ReturnType<typeof synthesize>;
let withEmail: ReturnType<typeof synthesize>;

beforeAll(() => {
  plain = synthesize();
  withTopic = synthesize({ alarmTopicArn: TOPIC_ARN });
  withEmail = synthesize({ alarmEmail: 'ops@example.com' });
});

const alarmsOf = (template: Template) => Object.values(template.findResources('AWS::CloudWatch::Alarm'));

/**
 * The dashboard's widgets. CloudFormation joins its body from strings around tokens (region, alarm ARNs):
 * each token becomes the logical id it names.
 */
// biome-ignore lint/suspicious/noExplicitAny: CloudWatch's dashboard body JSON, asserted on below
function dashboardWidgets(template: Template): any[] {
  const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
  expect(dashboards).toHaveLength(1);
  const [, parts] = (dashboards[0] as { Properties: { DashboardBody: { 'Fn::Join': [string, unknown[]] } } })
    .Properties.DashboardBody['Fn::Join'];
  const body = parts
    .map((part) =>
      typeof part === 'string'
        ? part
        : ((part as { Ref?: string }).Ref ?? (part as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]),
    )
    .join('');
  return JSON.parse(body).widgets;
}

describe('metrics on AWS', () => {
  it('are written by every function into the namespace named after the stack', () => {
    const lambdas = Object.values(plain.template.findResources('AWS::Lambda::Function'));
    expect(lambdas.length).toBeGreaterThan(0);
    for (const lambda of lambdas) {
      expect(lambda.Properties.Environment.Variables.POWERTOOLS_METRICS_NAMESPACE).toBe(NAMESPACE);
    }
  });

  it('are graphed on one dashboard, every metric of functions/metrics.ts, with the state of every alarm', () => {
    plain.template.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: NAMESPACE });
    const widgets = dashboardWidgets(plain.template);
    const graphs = widgets.filter((widget) => widget.type === 'metric');
    expect(graphs.map((graph) => graph.properties.title.split(':')[0])).toEqual(Object.keys(METRICS));
    for (const graph of graphs) {
      const [first] = graph.properties.metrics;
      expect(first.slice(0, 4)).toEqual([NAMESPACE, expect.any(String), 'service', 'payment-links']);
    }
    // Per-provider lines come from a search, so a new provider needs no change here.
    const payments = graphs.find((graph) => graph.properties.title.startsWith('PaymentsSucceeded'));
    expect(payments.properties.metrics[1][0].expression).toBe(
      `SEARCH('{${NAMESPACE},service,provider} MetricName="PaymentsSucceeded"', 'Sum', 300)`,
    );
    const latency = graphs.find((graph) => graph.properties.title.startsWith('WebhookDeliveryLatency'));
    expect(
      latency.properties.metrics.map((line: unknown[]) => (line.at(-1) as { stat: string }).stat),
    ).toEqual(['p50', 'p90', 'p99']);
    const alarmWidget = widgets.find((widget) => widget.type === 'alarm');
    expect([...alarmWidget.properties.alarms].sort()).toEqual(
      Object.keys(plain.template.findResources('AWS::CloudWatch::Alarm')).sort(),
    );
  });

  it('alarm when most payment attempts fail at the PSP, when webhooks fall behind, on a refund stuck pending and on any payment a PSP reported at another amount', () => {
    plain.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Threshold: 50,
      ComparisonOperator: 'GreaterThanThreshold',
      Metrics: Match.arrayWith([
        Match.objectLike({
          Expression: 'IF(failed + succeeded >= 10, 100 * failed / (failed + succeeded), 0)',
        }),
        Match.objectLike({
          Id: 'failed',
          MetricStat: Match.objectLike({
            Metric: {
              Namespace: NAMESPACE,
              MetricName: 'PaymentsFailed',
              Dimensions: [{ Name: 'service', Value: 'payment-links' }],
            },
            Stat: 'Sum',
          }),
        }),
      ]),
    });
    plain.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: NAMESPACE,
      MetricName: 'WebhookDeliveryLatency',
      ExtendedStatistic: 'p50',
      Threshold: 300_000,
      EvaluationPeriods: 3,
    });
    plain.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: NAMESPACE,
      MetricName: 'RefundsStuck',
      Statistic: 'Sum',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    plain.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: NAMESPACE,
      MetricName: 'PaymentAmountMismatches',
      Dimensions: [{ Name: 'service', Value: 'payment-links' }],
      Statistic: 'Sum',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
    });
  });
});

describe('reserved concurrency on AWS', () => {
  it('alarms when a function reachable without a key is throttled at its reservation, twice in a row', () => {
    const throttles = alarmsOf(plain.template).filter((alarm) => alarm.Properties.MetricName === 'Throttles');
    const throttled = throttles.map((alarm) => alarm.Properties.Dimensions[0].Value.Ref as string).sort();

    // Sorted, the logical ids follow the handlers' alphabetical order.
    expect(throttled).toEqual(
      [
        'CheckoutPage',
        'CheckoutQr',
        'Console',
        'ConsoleOverview',
        'GetOpenapi',
        'PspNotifications',
        'RouteFallback',
        'SandboxCheckout',
        'SubscriptionCancelPage',
      ].map((name) => expect.stringMatching(new RegExp(`^Functions${name}Function`))),
    );
    for (const alarm of throttles) {
      expect(alarm.Properties).toMatchObject({
        Namespace: 'AWS/Lambda',
        Statistic: 'Sum',
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 2,
      });
    }
  });

  it('has no throttle alarm when reservedConcurrency=off reserves nothing', () => {
    const off = synthesize({ reservedConcurrency: 'off' });
    expect(alarmsOf(off.template).filter((alarm) => alarm.Properties.MetricName === 'Throttles')).toEqual([]);
  });
});

describe('alarm notifications', () => {
  it('go nowhere without alarmTopicArn or alarmEmail: no topic, no alarm actions', () => {
    plain.template.resourceCountIs('AWS::SNS::Topic', 0);
    for (const alarm of alarmsOf(plain.template)) expect(alarm.Properties.AlarmActions).toBeUndefined();
  });

  it('go to the topic named by alarmTopicArn from every alarm, when it fires and when it recovers', () => {
    const alarms = alarmsOf(withTopic.template);
    expect(alarms.length).toBeGreaterThanOrEqual(6);
    for (const alarm of alarms) {
      expect(alarm.Properties).toMatchObject({ AlarmActions: [TOPIC_ARN], OKActions: [TOPIC_ARN] });
    }
    withTopic.template.resourceCountIs('AWS::SNS::Topic', 0);
    expect(withTopic.violations).toEqual([]);
  });

  it('go to alarmEmail through an encrypted, TLS-only topic of the stack that CloudWatch may publish to', () => {
    const { template } = withEmail;
    template.resourceCountIs('AWS::SNS::Topic', 1);
    const [topicId] = Object.keys(template.findResources('AWS::SNS::Topic'));
    template.hasResourceProperties('AWS::SNS::Topic', {
      KmsMasterKeyId: { 'Fn::GetAtt': [Match.stringLikeRegexp('TopicKey'), 'Arn'] },
    });
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      TopicArn: { Ref: topicId },
    });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          }),
        ]),
      },
    });
    for (const alarm of alarmsOf(template)) {
      expect(alarm.Properties).toMatchObject({
        AlarmActions: [{ Ref: topicId }],
        OKActions: [{ Ref: topicId }],
      });
    }
    expect(withEmail.violations).toEqual([]);
  });

  it('subscribe alarmEmail to the alarmTopicArn topic when both are given', () => {
    const { template } = synthesize({ alarmTopicArn: TOPIC_ARN, alarmEmail: 'ops@example.com' });
    template.resourceCountIs('AWS::SNS::Topic', 0);
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      TopicArn: TOPIC_ARN,
    });
  });

  it('refuse a malformed topic ARN or address at synth', () => {
    expect(() => synthesize({ alarmTopicArn: 'on-call' })).toThrow(/alarmTopicArn/);
    expect(() => synthesize({ alarmEmail: 'ops' })).toThrow(/alarmEmail/);
  });
});
