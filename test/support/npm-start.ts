import { type ChildProcess, spawn } from 'node:child_process';

export interface StartedStack {
  child: ChildProcess;
  baseUrl: string;
  apiKey: string;
  banner: string;
  /** All it has written to its terminal (stdout and stderr) so far, the banner first. */
  output: () => string;
}

/** Starts `bin/local.ts` the way `npm start` does, on `dataDir`, and waits for its banner. */
export async function startLikeNpmStart(dataDir: string, children: ChildProcess[]): Promise<StartedStack> {
  const child = spawn(process.execPath, ['bin/local.ts'], {
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Stop: Ctrl+C')) resolve();
    });
    child.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
  const banner = output;
  const baseUrl = /Base URL\s+(\S+)/.exec(banner)?.[1] as string;
  const apiKey = /Test API key\s+(\S+)/.exec(banner)?.[1] as string;
  return { child, baseUrl, apiKey, banner, output: () => output };
}

export async function stopStarted(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
