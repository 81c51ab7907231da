import { RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';

export interface SigningKeyProps {
  protectData: boolean;
}

/**
 * The KMS key that seals webhook signing secrets at rest (envelope encryption,
 * functions/adapters/secrets/kms-cipher.ts). Functions whose route-table entry says `signingKey` (the delivery
 * function) may use it, and only for ciphertexts made for signing secrets (encryption context
 * `purpose`); operators run the keys CLI with their own credentials (docs/security.md#webhook-signing-secrets).
 */
export class SigningKey extends Construct {
  readonly key: Key;

  constructor(scope: Construct, id: string, props: SigningKeyProps) {
    super(scope, id);
    this.key = new Key(this, 'Key', {
      description: 'Seals the webhook signing secrets stored in the payment links table',
      enableKeyRotation: true,
      removalPolicy: props.protectData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
  }

  /** What functions/config.ts reads (the key's ARN; never key material). */
  get environment(): Record<string, string> {
    return { SIGNING_KEY_ID: this.key.keyArn };
  }

  /**
   * `open`: decrypt, and seal with fresh data keys (a plaintext secret of an earlier version, on first use).
   * `seal`: fresh data keys only, to seal a new secret that the function shows once and can never open again.
   */
  grantUse(fn: IFunction, use: 'open' | 'seal' = 'open'): void {
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: use === 'open' ? ['kms:Decrypt', 'kms:GenerateDataKey'] : ['kms:GenerateDataKey'],
        resources: [this.key.keyArn],
        conditions: { StringEquals: { 'kms:EncryptionContext:purpose': 'webhook-signing-secret' } },
      }),
    );
  }
}
