import { execFile } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inviteConsoleUser } from '../../lib/console-invite.ts';

const run = promisify(execFile);

/**
 * `npm run console -- invite` against a tiny server that speaks Cognito's JSON protocol (AWS JSON 1.1) for
 * AdminCreateUser: what the real SDK sends is asserted, not a mock of it.
 */
interface Received {
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}
let server: Server;
let endpoint: string;
let received: Received[] = [];
const existing = new Set<string>();

beforeAll(async () => {
  server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk) => {
      raw += chunk;
    });
    request.on('end', () => {
      const body = JSON.parse(raw) as { Username: string; UserAttributes: unknown };
      received.push({ headers: request.headers, body });
      response.setHeader('content-type', 'application/x-amz-json-1.1');
      if (existing.has(body.Username)) {
        response.statusCode = 400;
        response.end(
          JSON.stringify({ __type: 'UsernameExistsException', message: 'User account already exists' }),
        );
        return;
      }
      existing.add(body.Username);
      response.end(
        JSON.stringify({
          User: {
            Username: body.Username,
            UserStatus: 'FORCE_CHANGE_PASSWORD',
            Enabled: true,
            Attributes: body.UserAttributes,
          },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server?.close(resolve)));
beforeEach(() => {
  received = [];
});

const cognito = () =>
  new CognitoIdentityProviderClient({
    endpoint,
    region: 'eu-west-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });

const cli = (...args: string[]) =>
  run(process.execPath, ['bin/console.ts', ...args], {
    cwd: `${import.meta.dirname}/../..`,
    env: {
      ...process.env,
      AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER: endpoint,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      CONSOLE_USER_POOL_ID: '',
    },
  }).catch((error: { code: number; stdout: string; stderr: string }) => error);

describe('inviting a console user', () => {
  it('sends AdminCreateUser with the e-mail as user name, its account and role as custom attributes', async () => {
    const user = await inviteConsoleUser(cognito(), {
      userPoolId: 'eu-west-1_Pool1',
      account: 'acme',
      email: 'fin@acme.example',
      role: 'finance',
    });

    expect(user).toEqual({ username: 'fin@acme.example', status: 'FORCE_CHANGE_PASSWORD' });
    expect(received).toHaveLength(1);
    expect(received[0]?.headers['x-amz-target']).toBe('AWSCognitoIdentityProviderService.AdminCreateUser');
    expect(received[0]?.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=test\/\d+\/eu-west-1\/cognito-idp\//,
    );
    expect(received[0]?.body).toEqual({
      UserPoolId: 'eu-west-1_Pool1',
      Username: 'fin@acme.example',
      UserAttributes: [
        { Name: 'email', Value: 'fin@acme.example' },
        { Name: 'email_verified', Value: 'true' },
        { Name: 'custom:account', Value: 'acme' },
        { Name: 'custom:role', Value: 'finance' },
      ],
      DesiredDeliveryMediums: ['EMAIL'],
    });
  });

  it('says so when the user exists, leaving their account and role alone', async () => {
    const invitation = {
      userPoolId: 'eu-west-1_Pool1',
      account: 'acme',
      email: 'twice@acme.example',
      role: 'viewer',
    } as const;
    await inviteConsoleUser(cognito(), invitation);

    await expect(inviteConsoleUser(cognito(), { ...invitation, role: 'admin' })).rejects.toThrow(
      'twice@acme.example is a console user already',
    );
  });

  it('from the command line, with the pool of the stack output', async () => {
    const invited = await cli(
      'invite',
      '--account',
      'acme',
      '--email',
      'ops@acme.example',
      '--role',
      'admin',
      '--user-pool-id',
      'eu-west-1_Pool2',
    );

    expect(invited.stdout).toContain('Invited ops@acme.example (admin, acme)');
    expect(received.map((request) => request.body.UserPoolId)).toEqual(['eu-west-1_Pool2']);
  });

  it('refuses without a user pool (the local stack has none) or with a bad address, sending nothing', async () => {
    const local = await cli('invite', '--account', 'acme', '--email', 'a@acme.example', '--role', 'viewer');
    const badEmail = await cli(
      'invite',
      '--account',
      'acme',
      '--email',
      'nope',
      '--role',
      'viewer',
      '--user-pool-id',
      'p',
    );

    expect(local).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('The local stack has no user pool'),
    });
    expect(badEmail).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--email must be an e-mail address'),
    });
    expect(received).toEqual([]);
  });
});
