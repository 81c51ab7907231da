import { Aspects, type IAspect } from 'aws-cdk-lib';
import { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct, type IConstruct } from 'constructs';

export interface AlarmNotificationsProps {
  /** An existing SNS topic (e.g. the team's on-call topic) that every alarm notifies. */
  topicArn?: string;
  /** An address subscribed to the alarms: to `topicArn` when given, else to a topic of the stack's own. */
  email?: string;
}

/**
 * Where the alarms go: every CloudWatch alarm of the stack, today's and any added later, notifies the topic
 * when it fires and when it recovers. Without `topicArn` or `email` the alarms only show on the dashboard.
 * The stack's own topic is encrypted with a key of its own, which CloudWatch may use to publish (the AWS
 * managed SNS key does not let it), and refuses plain HTTP.
 */
export class AlarmNotifications extends Construct {
  readonly topic: ITopic | undefined;

  constructor(scope: Construct, id: string, props: AlarmNotificationsProps) {
    super(scope, id);
    if (props.topicArn) {
      this.topic = Topic.fromTopicArn(this, 'Topic', props.topicArn);
    } else if (props.email) {
      const key = new Key(this, 'TopicKey', {
        description: 'Encrypts the alarm topic; CloudWatch alarms publish to it',
        enableKeyRotation: true,
      });
      key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
      this.topic = new Topic(this, 'Topic', { masterKey: key, enforceSSL: true });
    }
    if (!this.topic) return;
    if (props.email) this.topic.addSubscription(new EmailSubscription(props.email));
    const action = new SnsAction(this.topic);
    const notify: IAspect = {
      visit(node: IConstruct) {
        if (node instanceof Alarm) {
          node.addAlarmAction(action);
          node.addOkAction(action);
        }
      },
    };
    Aspects.of(scope).add(notify);
  }
}
