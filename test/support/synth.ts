import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CfnResource, NestedStack, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { createApp } from '../../lib/app.ts';
import { toConstructId } from '../../lib/constructs/service-functions.ts';
import type { PaymentLinksStack } from '../../lib/payment-links-stack.ts';

export interface Synthesized {
  stack: PaymentLinksStack;
  /** The whole service as one template, its nested stacks' resources beside the root's (`wholeTemplate`). */
  template: Template;
  /** What CloudFormation deploys: the root stack's own template and each nested stack's, by construct path. */
  templates: Record<string, Template>;
  /** Findings cdk-nag left unacknowledged (synth throws on them first, so this should stay empty). */
  violations: unknown[];
}

/**
 * Every context that adds resources, on at once: the largest stack any deployment can synthesize. The edge adds a
 * WebACL and a distribution, `alarmEmail` a topic, its key, its policy and the subscription (`alarmTopicArn`
 * instead adds only the subscription). A new opt-in that adds resources belongs here.
 */
export const LARGEST = { edgeRateLimit: '300', alarmEmail: 'ops@example.com' };

/**
 * aws-cdk-lib checks every synthesized template against CloudFormation's resource schemas (its built-in
 * "CloudFormation Validate", a WASM engine) and, unless told otherwise, only warns of what it finds: no test read
 * it. It cost about 2.3 CPU-s to start in each worker and 1.2 per synthesis, 19 of the infra project's 45 CPU-s
 * (docs/testing.md#cpu-per-file). So a synthesis runs it only when its context holds these settings, which also
 * make any finding, a warning included, fail the synthesis: test/infra/stack.test.ts asks for it on the app with
 * every opt-in on (`LARGEST`), which holds every resource any deployment synthesizes.
 */
export const CLOUDFORMATION_VALIDATION = {
  '@aws-cdk/core:validateAgainstDefaultRules': true,
  '@aws-cdk/core:strictCfnValidateErrors': true,
} as const;

/**
 * Synthesises the app as `cdk synth` does, cdk-nag included. Asset bundling is skipped
 * (`aws:cdk:bundling-stacks: []`): templates are identical, and the bundles themselves are built and budgeted
 * by test/infra/bundles.test.ts. CloudFormation's own schema check runs only where asked
 * (`CLOUDFORMATION_VALIDATION`).
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

/**
 * The app as a test builds it: in a folder of its own, without asset bundling, and with CloudFormation's own
 * validation only when `context` asks for it (`CLOUDFORMATION_VALIDATION`).
 */
export function createTestApp(context: Record<string, unknown> = {}): ReturnType<typeof createApp> {
  return createApp({
    outdir: mkdtempSync(join(tmpdir(), 'cdk-out-')),
    context: { 'aws:cdk:bundling-stacks': [], ...context },
    builtinCloudFormationValidation: Object.keys(CLOUDFORMATION_VALIDATION).every((flag) => flag in context),
  });
}

function synthesizeAfresh(extraContext: Record<string, unknown>) {
  const { app, stack } = createTestApp({ stage: 'prod', ...extraContext });
  app.synth(); // throws on any unacknowledged cdk-nag finding
  const report = JSON.parse(readFileSync(join(app.outdir, 'validation-report.json'), 'utf8')) as {
    pluginReports: { violations: unknown[] }[];
  };
  return {
    app,
    stack,
    template: wholeTemplate(stack),
    templates: Object.fromEntries(
      [stack, ...nestedStacksOf(stack)].map((each) => [each.node.path, Template.fromStack(each)]),
    ),
    violations: report.pluginReports.flatMap((plugin) => plugin.violations),
  };
}

type Json = Record<string, unknown>;

const nestedStacksOf = (stack: Stack): NestedStack[] =>
  stack.node.findAll().filter(NestedStack.isNestedStack);

/**
 * The root stack and its nested stacks as one template, so that an assertion about the service reads the same
 * wherever a resource is deployed: each nested stack's resources join the root's (a logical id used in two stacks
 * throws), a nested stack's parameter is replaced by what the root passes it (`Fn::GetAtt` of the table, `Ref`
 * of the API), and a root reference to a nested stack's output by that output's value. The nested stacks'
 * own resources (`AWS::CloudFormation::Stack`) are left out; the root's outputs are the template's outputs.
 */
export function wholeTemplate(root: Stack): Template {
  const whole = structuredClone(Template.fromStack(root).toJSON()) as Json & {
    Resources: Record<string, Json>;
  };
  const outputsByStack = new Map<string, Json>();
  for (const nested of nestedStacksOf(root)) {
    if (nested.nestedStackParent !== root) throw new Error(`${nested.node.path}: only one level of nesting`);
    const stackId = root.resolve((nested.nestedStackResource as CfnResource).logicalId) as string;
    const parameters = ((whole.Resources[stackId]?.Properties as Json | undefined)?.Parameters ?? {}) as Json;
    const json = replaceAll(Template.fromStack(nested).toJSON(), (node) =>
      typeof node.Ref === 'string' && node.Ref in parameters ? parameters[node.Ref] : undefined,
    ) as Json & { Resources: Json; Outputs?: Record<string, { Value: unknown }> };
    const unmerged = ['Conditions', 'Rules', 'Mappings'].filter((section) => section in json);
    if (unmerged.length) throw new Error(`${nested.node.path}: ${unmerged.join(', ')} not merged`);
    for (const [logicalId, resource] of Object.entries(json.Resources)) {
      if (logicalId in whole.Resources) throw new Error(`${logicalId} is in two stacks`);
      whole.Resources[logicalId] = resource as Json;
    }
    outputsByStack.set(
      stackId,
      Object.fromEntries(Object.entries(json.Outputs ?? {}).map(([name, output]) => [name, output.Value])),
    );
    delete whole.Resources[stackId];
  }
  return Template.fromJSON(
    replaceAll(whole, (node) => {
      const [stackId, attribute] = (node['Fn::GetAtt'] ?? []) as [string?, string?];
      const outputs = stackId === undefined ? undefined : outputsByStack.get(stackId);
      return outputs && attribute?.startsWith('Outputs.')
        ? outputs[attribute.slice('Outputs.'.length)]
        : undefined;
    }) as Json,
  );
}

/** A deep copy of `value` in which each object that `replacement` answers for is replaced by its answer. */
function replaceAll(value: unknown, replacement: (node: Json) => unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => replaceAll(item, replacement));
  if (value === null || typeof value !== 'object') return value;
  const replaced = replacement(value as Json);
  if (replaced !== undefined) return replaced;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, replaceAll(item, replacement)]));
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
