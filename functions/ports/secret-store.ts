/**
 * Secrets (PSP credentials, the sandbox's signing secret): AWS Secrets Manager on AWS, a file the local stack
 * writes under its data folder locally. Never environment values or code.
 */
export interface SecretStore {
  /** The secret's value, or undefined when there is no such secret. */
  get(name: string): Promise<string | undefined>;
}
