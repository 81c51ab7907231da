import type { Mode } from '../domain/principal.ts';

/** Which PSP serves an (account, mode). Credentials are not here: they live in the SecretStore. */
export interface PspConfig {
  account: string;
  mode: Mode;
  provider: string;
  updated_at: string;
}

export interface PspConfigRepository {
  get(account: string, mode: Mode): Promise<PspConfig | undefined>;
  put(config: PspConfig): Promise<void>;
}
