/**
 * What `npm start` leaves on the terminal. The functions log every request at INFO and print their metrics as
 * EMF lines on stdout (as on Lambda, where CloudWatch reads them); on a developer's terminal those push the
 * banner off the screen, so they are held back unless `--verbose` or a log level asks for them.
 */
export function quietTerminalUnlessAsked(env: NodeJS.ProcessEnv, verbose: boolean): void {
  if (verbose) return;
  const levelAsked = env.POWERTOOLS_LOG_LEVEL ?? env.LOG_LEVEL ?? env.AWS_LAMBDA_LOG_LEVEL;
  if (levelAsked === undefined) env.POWERTOOLS_LOG_LEVEL = 'WARN';
  env.POWERTOOLS_METRICS_DISABLED ??= 'true';
}

/** The banner's first line: pasted into a shell, it sets what the README's commands use. */
export function exportLine(values: { base: string; key: string; webhookSecret: string }): string {
  return `export BASE=${values.base} KEY=${values.key} WEBHOOK_SECRET=${values.webhookSecret}`;
}
