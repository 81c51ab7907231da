import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { createApp } from '../../lib/app.ts';
import { toConstructId } from '../../lib/constructs/service-functions.ts';
import type { PaymentLinksStack } from '../../lib/payment-links-stack.ts';

export interface Synthesized {
  stack: PaymentLinksStack;
  template: Template;
  /** Findings cdk-nag left unacknowledged (synth throws on them first, so this should stay empty). */
  violations: unknown[];
}

/**
 * Synthesises the app as `cdk synth` does, cdk-nag included. Asset bundling is skipped
 * (`aws:cdk:bundling-stacks: []`): templates are identical, and the bundles themselves are built and budgeted
 * by test/infra/bundles.test.ts.
 *
 * One synthesis per context and deploy target (`CDK_DEFAULT_ACCOUNT`, `CDK_DEFAULT_REGION`) per worker: the infra
 * files share their worker's modules (`isolate: false`), so the files a worker runs read the same synthesized
 * app, as the tests of one file always did, instead of synthesising it again (about 5 CPU-s each,
 * docs/testing.md#speed). Nothing reads a synthesized app but to inspect it. A synthesis that throws is not kept.
 */
export function synthesize(
  extraContext: Record<string, unknown> = {},
): Synthesized & { app: ReturnType<typeof createApp>['app'] } {
  const key = JSON.stringify([extraContext, process.env.CDK_DEFAULT_ACCOUNT, process.env.CDK_DEFAULT_REGION]);
  let synthesized = synthesizedApps.get(key);
  if (!synthesized) {
    synthesized = synthesizeAfresh(extraContext);
    synthesizedApps.set(key, synthesized);
  }
  return synthesized;
}

const synthesizedApps = new Map<string, ReturnType<typeof synthesizeAfresh>>();

function synthesizeAfresh(extraContext: Record<string, unknown>) {
  const outdir = mkdtempSync(join(tmpdir(), 'cdk-out-'));
  const { app, stack } = createApp({
    outdir,
    context: { stage: 'prod', 'aws:cdk:bundling-stacks': [], ...extraContext },
  });
  app.synth(); // throws on any unacknowledged cdk-nag finding
  const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as {
    pluginReports: { violations: unknown[] }[];
  };
  return {
    app,
    stack,
    template: Template.fromStack(stack),
    violations: report.pluginReports.flatMap((plugin) => plugin.violations),
  };
}

/** The logical id of the Lambda function built for a handler file. */
export function functionLogicalId(template: Template, handler: string): string {
  const match = Object.keys(template.findResources('AWS::Lambda::Function')).find((logicalId) =>
    logicalId.startsWith(`Functions${toConstructId(handler)}Function`),
  );
  if (!match) throw new Error(`No function for ${handler}`);
  return match;
}

/** Every IAM statement attached to the role of a handler's function. */
export function policyStatementsOf(template: Template, handler: string) {
  const roleId =
    template.findResources('AWS::Lambda::Function')[functionLogicalId(template, handler)]?.Properties.Role[
      'Fn::GetAtt'
    ][0];
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => policy.Properties.Roles.some((role: { Ref: string }) => role.Ref === roleId))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
}

/** Step 3 of the index migration, whose functions read both former indexes: synthesized when first needed. */
export const migrationStepThree = () => synthesize({ indexMigration: '3' });

export const functionsOf = (synthesized: Template) =>
  Object.values(synthesized.findResources('AWS::Lambda::Function')) as {
    Properties: { Environment?: { Variables?: Record<string, unknown> } };
  }[];
