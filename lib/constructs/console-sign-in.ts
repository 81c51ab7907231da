import { Aws, Duration, Fn, RemovalPolicy } from 'aws-cdk-lib';
import {
  AccountRecovery,
  ClientAttributes,
  FeaturePlan,
  Mfa,
  OAuthScope,
  StringAttribute,
  UserPool,
  type UserPoolClient,
  UserPoolClientIdentityProvider,
  type UserPoolDomain,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { CONSOLE_ROLES } from '../../functions/domain/console-access.ts';

export interface ConsoleSignInProps {
  /** The public base of the API: the console is served under `<base>/console`. */
  publicBase: string;
  stage: string;
  protectData: boolean;
}

/**
 * The console's users (docs/console.md#signing-in): an Amazon Cognito user pool whose users operators create
 * (`npm run console -- invite`; nobody signs up), each with one account and one role as custom attributes, and
 * an app client for the hosted sign-in page: a public client (no secret) on the authorization code grant with
 * PKCE, returning to `<base>/console/auth/callback`. The client may read the account and role but never write
 * them, so a user cannot move themselves to another account or role.
 */
export class ConsoleSignIn extends Construct {
  readonly userPool: UserPool;
  readonly client: UserPoolClient;
  readonly domain: UserPoolDomain;

  constructor(scope: Construct, id: string, props: ConsoleSignInProps) {
    super(scope, id);
    this.userPool = new UserPool(this, 'Users', {
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      customAttributes: {
        account: new StringAttribute({ minLen: 1, maxLen: 64, mutable: true }),
        role: new StringAttribute({
          minLen: Math.min(...CONSOLE_ROLES.map((role) => role.length)),
          maxLen: Math.max(...CONSOLE_ROLES.map((role) => role.length)),
          mutable: true,
        }),
      },
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      // People who can refund money: a second factor, from an authenticator app.
      mfa: Mfa.REQUIRED,
      mfaSecondFactor: { otp: true, sms: false },
      // Threat protection (compromised credentials, risky sign-ins) is a Plus-plan feature.
      featurePlan: FeaturePlan.PLUS,
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      deletionProtection: props.protectData,
      removalPolicy: props.protectData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    const readable = new ClientAttributes()
      .withStandardAttributes({ email: true, emailVerified: true })
      .withCustomAttributes('account', 'role');
    this.client = this.userPool.addClient('Console', {
      generateSecret: false,
      authFlows: {},
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [OAuthScope.OPENID, OAuthScope.EMAIL],
        callbackUrls: [`${props.publicBase}/console/auth/callback`],
        logoutUrls: [`${props.publicBase}/console/sign-in`],
      },
      readAttributes: readable,
      writeAttributes: new ClientAttributes(),
      preventUserExistenceErrors: true,
      idTokenValidity: Duration.minutes(15),
      accessTokenValidity: Duration.minutes(15),
      refreshTokenValidity: Duration.hours(12),
    });
    // The hosted sign-in page's domain: unique per stage and AWS account, as Cognito domain prefixes must be.
    this.domain = this.userPool.addDomain('Domain', {
      cognitoDomain: { domainPrefix: Fn.join('-', ['payment-links-console', props.stage, Aws.ACCOUNT_ID]) },
    });
  }

  /** What the console function reads (functions/config.ts). */
  get environment(): Record<string, string> {
    return {
      CONSOLE_USER_POOL_ID: this.userPool.userPoolId,
      CONSOLE_CLIENT_ID: this.client.userPoolClientId,
      CONSOLE_AUTH_DOMAIN: this.domain.baseUrl(),
    };
  }
}
