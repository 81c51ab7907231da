import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { allowedMethodsByPath, FALLBACK_HANDLER, type HandlerName, routes } from '../routes.ts';
import { asFunction } from './permissions.ts';

type Handler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

interface MatchedRoute {
  routeKey: string;
  handler: HandlerName;
  pathParameters: Record<string, string> | undefined;
}

const compiled = [...allowedMethodsByPath().keys()].map((path) => ({
  path,
  pattern: new RegExp(`^${path.replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`),
}));

/**
 * API Gateway HTTP API route selection, as the deployed API does it: the exact `METHOD /path` route, else the
 * path's `ANY` route (405), else `$default` (404). Both fall back to the same handler the stack deploys.
 */
export function matchRoute(method: string, rawPath: string): MatchedRoute {
  for (const { path, pattern } of compiled) {
    const match = pattern.exec(rawPath);
    if (!match) continue;
    const pathParameters = match.groups ? { ...match.groups } : undefined;
    const route = routes.find((candidate) => candidate.path === path && candidate.method === method);
    if (route) return { routeKey: `${method} ${path}`, handler: route.handler, pathParameters };
    return { routeKey: `ANY ${path}`, handler: FALLBACK_HANDLER, pathParameters };
  }
  return { routeKey: '$default', handler: FALLBACK_HANDLER, pathParameters: undefined };
}

/** A Lambda context with what handlers and middy read. */
export function lambdaContext(functionName: string, timeoutMs: number): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** Events rather than `for await`: the async iterator costs more per request than the read itself. */
function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    request.once('error', reject);
  });
}

/** Bodies API Gateway (HTTP API) passes as text; it base64-encodes every other content type. */
const TEXT_TYPES = /^(text\/|application\/(json|xml|javascript)\b)/i;

/** The request's headers as API Gateway passes them: lower-cased, repeated ones comma-joined, cookies apart. */
function eventHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined && name !== 'cookie')
      headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  return headers;
}

/** The query string's parameters, repeated ones comma-joined; none without a query string. */
function queryParameters(url: URL): Record<string, string> | undefined {
  if (!url.searchParams.size) return undefined;
  return Object.fromEntries(
    [...new Set(url.searchParams.keys())].map((key) => [key, url.searchParams.getAll(key).join(',')]),
  );
}

/** The body as text for a text content type, base64 for any other; none when empty. */
function eventBody(
  body: Buffer,
  contentType: string | undefined,
): Pick<APIGatewayProxyEventV2, 'body' | 'isBase64Encoded'> {
  if (!body.length) return { body: undefined, isBase64Encoded: false };
  const isText = TEXT_TYPES.test(contentType ?? '');
  return { body: body.toString(isText ? 'utf8' : 'base64'), isBase64Encoded: !isText };
}

/** Payload format 2.0, shaped like what API Gateway sends (headers lower-cased and comma-joined). */
export async function toApiGatewayEvent(
  request: IncomingMessage,
  url: URL,
  route: MatchedRoute,
): Promise<APIGatewayProxyEventV2> {
  const headers = eventHeaders(request);
  const body = await readBody(request);
  const now = new Date();
  return {
    version: '2.0',
    routeKey: route.routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    cookies: request.headers.cookie?.split(/;\s*/),
    headers,
    queryStringParameters: queryParameters(url),
    pathParameters: route.pathParameters,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method: request.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: route.routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...eventBody(body, headers['content-type']),
  };
}

export function writeResult(
  response: ServerResponse,
  result: APIGatewayProxyStructuredResultV2,
  requestId: string,
) {
  response.statusCode = result.statusCode ?? 200;
  for (const [name, value] of Object.entries(result.headers ?? {})) response.setHeader(name, String(value));
  if (result.cookies?.length) response.setHeader('Set-Cookie', result.cookies);
  response.setHeader('apigw-requestid', requestId);
  const body = result.body ?? '';
  response.end(result.isBase64Encoded ? Buffer.from(body, 'base64') : body);
}

export type HandlerLoader = (name: HandlerName) => Promise<Handler>;

/**
 * Imports each handler module on first use: the very files the CDK stack bundles. Every invocation, whatever
 * triggers it (HTTP, schedule, queue), runs as its function, with that function's permissions only.
 */
export function handlerLoader(): HandlerLoader {
  const loaded = new Map<HandlerName, Promise<Handler>>();
  return (name) => {
    let handler = loaded.get(name);
    if (!handler) {
      handler = import(`../../functions/handlers/${name}.ts`).then((module) => {
        const invoke = module.handler as Handler;
        return (event, context) => asFunction(name, () => invoke(event, context));
      });
      loaded.set(name, handler);
    }
    return handler;
  };
}
