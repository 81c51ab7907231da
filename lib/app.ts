import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PaymentLinksStack } from './payment-links-stack.ts';

/**
 * The CDK app, shared by `bin/app.ts` and the infra tests. Context: `stage` (default `dev`; any other stage
 * retains and protects data) and `checkoutBase` (a custom domain for checkout pages). cdk-nag's AwsSolutions
 * rules run on every synth; a finding that is not acknowledged in code with its reason fails the synth.
 */
export function createApp(props: AppProps = {}): { app: App; stack: PaymentLinksStack } {
  const app = new App(props);
  const stage = String(app.node.tryGetContext('stage') ?? 'dev');
  const stack = new PaymentLinksStack(app, `PaymentLinks-${stage}`, {
    stage,
    checkoutBase: app.node.tryGetContext('checkoutBase') as string | undefined,
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  return { app, stack };
}
