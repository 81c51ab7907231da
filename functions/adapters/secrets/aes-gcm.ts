import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM with a 96-bit random IV; the context is authenticated (AAD), so a ciphertext copied to another
 * item fails to decrypt. Output: `<iv>.<ciphertext and tag>`, base64url.
 */
export function seal(key: Uint8Array, plaintext: string, context: Record<string, string>): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(canonicalContext(context)));
  const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${iv.toString('base64url')}.${sealed.toString('base64url')}`;
}

export function open(key: Uint8Array, box: string, context: Record<string, string>): string {
  const [iv, sealed] = box.split('.');
  if (!iv || !sealed) throw new Error('Not a sealed secret');
  const bytes = Buffer.from(sealed, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(canonicalContext(context)));
  decipher.setAuthTag(bytes.subarray(bytes.length - 16));
  return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString(
    'utf8',
  );
}

function canonicalContext(context: Record<string, string>): string {
  return JSON.stringify(Object.entries(context).sort(([a], [b]) => a.localeCompare(b)));
}
