import { Arn, ArnFormat, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { FunctionDefinition } from '../routes.ts';

export interface CheckoutSecretsProps {
  stage: string;
  protectData: boolean;
}

/**
 * The secrets of checkout: the sandbox PSP's generated HMAC signing secret, and the naming convention for PSP
 * credentials that `npm run psp -- add` stores per connection: `payment-links/<stage>/psp/connections/<pc_id>`,
 * a JSON value per provider (docs/orchestration.md#connections). Functions get
 * `secretsmanager:GetSecretValue` on exactly the secrets their route-table entry lists.
 */
export class CheckoutSecrets extends Construct {
  readonly sandboxSecret: Secret;
  /** The HMAC key that derives a keyed link's id (docs/security.md#link-ids). */
  readonly linkIdSecret: Secret;
  /** Prefix of every PSP credential secret of this stage. */
  readonly pspSecretPrefix: string;
  /**
   * What functions/config.ts reads: names and ARNs, and one value, the link-id key, as a dynamic reference that
   * CloudFormation resolves at deploy time (the template never holds it).
   */
  readonly environment: Record<string, string>;

  constructor(scope: Construct, id: string, props: CheckoutSecretsProps) {
    super(scope, id);
    this.sandboxSecret = new Secret(this, 'SandboxSigningSecret', {
      description: 'HMAC key the sandbox PSP signs its notifications with (test mode only)',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy: props.protectData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    Validations.of(this.sandboxSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'A random HMAC key used only between the service and its own test-mode sandbox PSP: no person or third party holds it, and it guards no money. Rotate by changing the secret value; warm containers pick it up within SECRETS_CACHE_SECONDS.',
    });
    this.linkIdSecret = new Secret(this, 'LinkIdSecret', {
      description: 'HMAC key that derives a payment link id from its creation request Idempotency-Key',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy: props.protectData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    Validations.of(this.linkIdSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Never rotated on a schedule: a keyed link id is derived from it, so a new value would let a retry within the 24 hours of its Idempotency-Key create a second link (docs/security.md#link-ids). It guards the unpredictability of those ids, no money.',
    });
    this.pspSecretPrefix = `payment-links/${props.stage}/psp/`;
    this.environment = {
      // In the environment rather than read at run time: every container of a deployment derives the same ids,
      // and a create pays no Secrets Manager call.
      LINK_ID_SECRET: this.linkIdSecret.secretValue.unsafeUnwrap(),
      SANDBOX_SECRET_NAME: this.sandboxSecret.secretArn,
      PSP_SECRET_PREFIX: this.pspSecretPrefix,
    };
  }

  /** Grants `fn` read access to the secrets `needs` names, nothing more. */
  grantRead(fn: IFunction, needs: NonNullable<FunctionDefinition['secrets']>): void {
    const resources: string[] = [];
    if (needs.includes('sandbox')) resources.push(this.sandboxSecret.secretArn);
    if (needs.includes('psp')) {
      resources.push(
        Arn.format(
          {
            service: 'secretsmanager',
            resource: 'secret',
            resourceName: `${this.pspSecretPrefix}*`,
            arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          },
          Stack.of(this),
        ),
      );
      const owner = fn.node.scope;
      if (owner) {
        // cdk-nag names a finding by the resource as rendered: `<AWS::Region>` while the region is a token,
        // the region itself when the stack has a concrete environment (likewise the account).
        const { region, account } = Stack.of(this);
        const rendered = (value: string, pseudo: string) =>
          Token.isUnresolved(value) ? `<AWS::${pseudo}>` : value;
        Validations.of(owner).acknowledge({
          // Exactly this one wildcard resource (cdk-nag's granular finding id), nothing else on the role.
          id: `AwsSolutions::AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:${rendered(region, 'Region')}:${rendered(account, 'AccountId')}:secret:${this.pspSecretPrefix}*]`,
          reason:
            "PSP credentials are one secret per PSP connection, created by operators after deployment (docs/orchestration.md), so the function may read any secret under this stage's payment-links/<stage>/psp/ prefix and nothing else; Secrets Manager appends a random suffix to each ARN.",
        });
      }
    }
    if (resources.length) {
      fn.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources }));
    }
  }
}
