import { vi } from 'vitest';

/**
 * Everything the process writes to stdout and stderr while `run` runs (the functions' JSON log lines among it),
 * for tests of what the logs say; the writes are kept from the terminal meanwhile.
 */
export async function capturedOutput(run: () => Promise<void>): Promise<string> {
  const lines: string[] = [];
  const capture = (chunk: unknown) => {
    lines.push(String(chunk));
    return true;
  };
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    await run();
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
  return lines.join('');
}
