import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { LARGEST, synthesize } from '../support/synth.ts';

/**
 * CloudFormation takes at most 500 resources in one stack, and a deploy over it fails only at `cdk deploy`
 * (it did once, at 502). The app is a root stack and a nested stack per surface (lib/surfaces.ts), each counted on
 * its own. The budget leaves room for the next routes and functions; above it, a surface is split in two as
 * docs/operations.md#stack-size says, never by merging functions.
 */
const RESOURCE_BUDGET = 450;

let largest: ReturnType<typeof synthesize>;
let plain: ReturnType<typeof synthesize>;

beforeAll(() => {
  largest = synthesize(LARGEST);
  plain = synthesize();
});

/** Every stack of the app, nested ones included, with the number of resources its template holds. */
function resourceCounts(synthesized: ReturnType<typeof synthesize>): Record<string, number> {
  const stacks = synthesized.app.node.findAll().filter(Stack.isStack);
  return Object.fromEntries(
    stacks.map((stack) => [
      stack.node.path,
      Object.keys(Template.fromStack(stack).toJSON().Resources ?? {}).length,
    ]),
  );
}

describe('the size of the CloudFormation stack', () => {
  it(`stays within ${RESOURCE_BUDGET} resources per stack (of CloudFormation's 500) with every opt-in on`, () => {
    const counts = resourceCounts(largest);
    const over = Object.entries(counts).filter(([, count]) => count > RESOURCE_BUDGET);
    expect(
      over,
      `over the budget: split a surface as docs/operations.md#stack-size says (${JSON.stringify(counts)})`,
    ).toEqual([]);
  });

  it('is largest with every opt-in on, so that the budget is checked where it is closest', () => {
    const total = (counts: Record<string, number>) => Object.values(counts).reduce((sum, n) => sum + n, 0);
    expect(total(resourceCounts(largest))).toBeGreaterThan(total(resourceCounts(plain)));
  });
});
