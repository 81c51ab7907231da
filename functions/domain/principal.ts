export const MODES = ['test', 'live'] as const;
export type Mode = (typeof MODES)[number];

/** Who is calling: every read and write is scoped by this pair. */
export interface Principal {
  account: string;
  mode: Mode;
}
