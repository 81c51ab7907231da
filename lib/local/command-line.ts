import { type ParseArgsConfig, parseArgs } from 'node:util';
import { failWithUsage } from './cli-target.ts';

type Parsed<T extends ParseArgsConfig> = ReturnType<typeof parseArgs<T>>;

/**
 * The command line of one of our CLIs, as `parseArgs` reads it, with `--help` (`-h`) added: help prints `usage`
 * and exits 0; an option the command does not take, or one without its value, prints why and `usage` and exits
 * 2, as every other usage error does, instead of Node's stack trace.
 */
export function parseCommandLine<T extends ParseArgsConfig>(config: T, usage: string): Parsed<T> {
  let parsed: Parsed<T>;
  try {
    parsed = parseArgs({
      ...config,
      options: { ...config.options, help: { type: 'boolean', short: 'h' } },
    }) as Parsed<T>;
  } catch (error) {
    if (!String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS_')) throw error;
    return failWithUsage(usage)((error as Error).message);
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(usage);
    process.exit(0);
  }
  return parsed;
}
