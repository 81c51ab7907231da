import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeKms {
  endpoint: string;
  keyId: string;
  /** The operations received, by name (`GenerateDataKey`, `Decrypt`). */
  calls: string[];
  stop(): Promise<void>;
}

/**
 * A local server speaking KMS's JSON protocol (`X-Amz-Target: TrentService.<Operation>`, blobs in base64) for
 * the two operations envelope encryption uses, so the official `@aws-sdk/client-kms` is the client under test.
 * Its "ciphertext blobs" seal the data key under a master key of its own, with the encryption context
 * authenticated, so a blob decrypts under the same context only (`InvalidCiphertextException` otherwise).
 */
export async function startFakeKms(): Promise<FakeKms> {
  const master = randomBytes(32);
  const keyId = `arn:aws:kms:us-east-1:000000000000:key/${randomBytes(16).toString('hex')}`;
  const calls: string[] = [];
  const aad = (context: Record<string, string> = {}) =>
    Buffer.from(JSON.stringify(Object.entries(context).sort(([a], [b]) => a.localeCompare(b))));

  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    const operation = String(request.headers['x-amz-target'] ?? '').replace('TrentService.', '');
    calls.push(operation);
    const reply = (status: number, payload: unknown) => {
      response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify(payload));
    };
    if (operation === 'GenerateDataKey') {
      const dataKey = randomBytes(32);
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', master, iv);
      cipher.setAAD(aad(body.EncryptionContext));
      const blob = Buffer.concat([iv, cipher.update(dataKey), cipher.final(), cipher.getAuthTag()]);
      return reply(200, {
        KeyId: keyId,
        Plaintext: dataKey.toString('base64'),
        CiphertextBlob: blob.toString('base64'),
      });
    }
    if (operation === 'Decrypt') {
      try {
        const blob = Buffer.from(body.CiphertextBlob, 'base64');
        const decipher = createDecipheriv('aes-256-gcm', master, blob.subarray(0, 12));
        decipher.setAAD(aad(body.EncryptionContext));
        decipher.setAuthTag(blob.subarray(blob.length - 16));
        const dataKey = Buffer.concat([
          decipher.update(blob.subarray(12, blob.length - 16)),
          decipher.final(),
        ]);
        return reply(200, {
          KeyId: keyId,
          Plaintext: dataKey.toString('base64'),
          EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
        });
      } catch {
        return reply(400, { __type: 'InvalidCiphertextException', message: 'The ciphertext is invalid.' });
      }
    }
    return reply(400, { __type: 'UnsupportedOperationException', message: operation });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    keyId,
    calls,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
