import { type ChildProcess, spawn } from 'node:child_process';

export interface StartedStack {
  child: ChildProcess;
  baseUrl: string;
  apiKey: string;
  banner: string;
}

/** Starts `bin/local.ts` the way `npm start` does, on `dataDir`, and waits for its banner. */
export async function startLikeNpmStart(dataDir: string, children: ChildProcess[]): Promise<StartedStack> {
  const child = spawn(process.execPath, ['bin/local.ts'], {
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let banner = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      banner += chunk;
      if (banner.includes('Stop: Ctrl+C')) resolve();
    });
    child.stderr?.on('data', (chunk) => {
      banner += chunk;
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${banner}`)));
  });
  const baseUrl = /Base URL\s+(\S+)/.exec(banner)?.[1] as string;
  const apiKey = /Test API key\s+(\S+)/.exec(banner)?.[1] as string;
  return { child, baseUrl, apiKey, banner };
}

export async function stopStarted(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
