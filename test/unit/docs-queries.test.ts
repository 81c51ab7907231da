import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every query of the docs runs as pasted: a `curl` whose URL holds `[` or `]` (`created[gte]`) passes `-g`
 * (`--globoff`), or curl would read the brackets as a glob and refuse the URL (docs/api.md#dates).
 */
const DOCUMENTS = [
  'README.md',
  'lib/merchant-sdk/README.md',
  'lib/openapi/api-reference.template.md',
  ...readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name)),
];

/** Each shell command of a document that calls curl, its continuation lines joined. */
function curlCommands(file: string): string[] {
  const joined = readFileSync(file, 'utf8').replace(/\\\n/g, ' ');
  return joined.split('\n').filter((line) => /(^|[\s($`])curl\s/.test(line));
}

/** The URLs a command names: the words (quoted or not) that start with `$BASE` or `http(s)://`. */
const urlsOf = (command: string) =>
  [...command.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)]
    .map((match) => match[1] ?? match[2] ?? match[3] ?? '')
    .filter((word) => /^(\$BASE|https?:\/\/)/.test(word));

describe('the queries of the docs', () => {
  const commands = DOCUMENTS.flatMap((file) => curlCommands(file).map((command) => ({ file, command })));

  it('are found: the docs hold curl commands with brackets in their URLs', () => {
    expect(
      commands.filter(({ command }) => urlsOf(command).some((url) => /[[\]]/.test(url))).length,
    ).toBeGreaterThan(3);
  });

  it('pass -g to curl wherever a URL holds brackets', () => {
    const globbed = commands.filter(
      ({ command }) =>
        urlsOf(command).some((url) => /[[\]]/.test(url)) &&
        !/\s(-g|--globoff|-\w*g\w*)\s/.test(`${command} `),
    );
    expect(globbed).toEqual([]);
  });
});
