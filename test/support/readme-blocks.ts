import { readFileSync } from 'node:fs';

/**
 * A fenced shell block of the README: its info string after `sh` and its text. `server`: what the test starts
 * itself; `problem`: must fail; `example`: needs the reader's own credentials, not run; none: must succeed.
 */
export interface ShellBlock {
  tag: string;
  text: string;
}

/** The `sh` blocks of one `##` section of a Markdown file, in order. */
export function shellBlocks(file: string, section: string): ShellBlock[] {
  const markdown = readFileSync(file, 'utf8');
  const start = markdown.indexOf(`\n## ${section}\n`);
  if (start < 0) throw new Error(`${file} has no section "## ${section}"`);
  const next = markdown.indexOf('\n## ', start + 1);
  const body = markdown.slice(start, next < 0 ? undefined : next);
  return [...body.matchAll(/^```sh( [a-z]+)?\n([\s\S]*?)^```$/gm)].map((match) => ({
    tag: (match[1] ?? '').trim(),
    text: match[2] as string,
  }));
}

/**
 * One bash script of the blocks, in order, so that a variable one sets (`PL=$(...)`) is there for the next. Every
 * failing command fails it: `curl` fails on an HTTP error status, as `-s` alone would not; a `problem` block
 * must fail instead (it shows an error answer).
 */
export function scriptOf(blocks: readonly ShellBlock[]): string {
  const parts = blocks.map((block, index) => {
    if (block.tag === 'problem') {
      // The block's last line may be a comment: the closing parenthesis goes on a line of its own.
      return `if (\n${block.text}\n); then echo "README block ${index + 1} should fail and did not" >&2; exit 1; fi`;
    }
    return block.text;
  });
  return ['set -euo pipefail', 'curl() { command curl --fail-with-body "$@"; }', ...parts].join('\n');
}
