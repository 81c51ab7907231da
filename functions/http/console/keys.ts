import type { ApiKeyRecord } from '../../domain/api-key.ts';
import type { ApiKeyRepository } from '../../ports/api-key-repository.ts';
import type { SigningSecretStore } from '../../ports/signing-secret-store.ts';
import { issueKeyWithoutSecret, listApiKeys, revokeApiKey } from '../../use-cases/api-keys.ts';
import { type Html, html } from '../html.ts';
import type { HtmlResult } from '../html-handler.ts';
import { type ConsoleMessages, consoleMessages } from './messages.ts';
import { CONSOLE_BASE, consolePage, consoleRedirect, csrfField, when } from './page.ts';
import type { ConsoleRequest } from './request.ts';

export interface KeysPageDependencies {
  apiKeys: ApiKeyRepository;
  /** Seals the account-mode's webhook signing secret with its first key; never opens one. */
  signingSecrets: Pick<SigningSecretStore, 'createWebhookSecretIfNone'>;
  now: () => Date;
}

const PATH = `${CONSOLE_BASE}/keys`;

/**
 * The API keys of the account in the session's mode (admins only): create one, shown once on the answer to the
 * POST and never again (only its hash is stored), and revoke one. The webhook signing secret is never shown here:
 * a key is issued without opening it (`issueKeyWithoutSecret`), and endpoints have secrets of their own.
 */
export async function keyRoutes(
  request: ConsoleRequest,
  deps: KeysPageDependencies,
): Promise<HtmlResult | undefined> {
  const { session } = request;
  switch (request.route) {
    case 'GET /console/keys': {
      const notice =
        request.event.queryStringParameters?.notice === 'revoked'
          ? consoleMessages(request.language).keys.revoked
          : undefined;
      return keysPage(request, deps, { notice });
    }
    case 'POST /console/keys': {
      const stores = { keys: deps.apiKeys, secrets: deps.signingSecrets };
      const created = await issueKeyWithoutSecret(stores, session.account, session.mode, deps.now());
      await request.audit('keys.manage', created.record.key_id);
      // Shown in the answer to this POST only: a reload does not post again, and nothing can show it later.
      return keysPage(request, deps, { created: created.api_key, status: 201 });
    }
    case 'POST /console/keys/{id}/revoke': {
      const keyId = request.event.pathParameters?.id ?? '';
      const revoked = await revokeApiKey(deps.apiKeys, session, keyId, deps.now());
      if (!revoked) return undefined;
      await request.audit('keys.manage', revoked.key_id);
      return consoleRedirect(`${PATH}?notice=revoked`, request.https);
    }
    default:
      return undefined;
  }
}

async function keysPage(
  request: ConsoleRequest,
  deps: KeysPageDependencies,
  extra: { created?: string; notice?: string | undefined; status?: number },
): Promise<HtmlResult> {
  const { session, language } = request;
  const words = consoleMessages(language).keys;
  const keys = (await listApiKeys(deps.apiKeys, session.account)).filter((key) => key.mode === session.mode);
  const body = html`<h1>${words.title}</h1>
${extra.created ? html`<div class="notice" role="status"><p>${words.created}</p><p><code id="new-key">${extra.created}</code></p></div>` : undefined}
${extra.notice ? html`<p class="notice" role="status">${extra.notice}</p>` : undefined}
<p>${words.intro(session.mode)}</p>
<form method="post" action="${PATH}">${csrfField(session)}<button type="submit">${words.create(session.mode)}</button></form>
${keysTable(request, keys, words)}`;
  const status = extra.status ?? 200;
  return consolePage({
    status,
    title: words.title,
    https: request.https,
    session,
    path: PATH,
    language,
    body,
  });
}

function keysTable(
  request: ConsoleRequest,
  keys: Omit<ApiKeyRecord, 'hash'>[],
  words: ConsoleMessages['keys'],
): Html {
  const newestFirst = [...keys].sort((a, b) => b.created_at.localeCompare(a.created_at));
  const rows = newestFirst.map(
    (key) => html`<tr><td><code>${key.key_id}</code></td><td><code>${key.display_prefix}</code></td>
<td>${key.mode}</td><td>${when(key.created_at)}</td><td>${key.status === 'revoked' ? words.revokedAt(when(key.revoked_at)) : words.active}</td>
<td>${key.status === 'active' ? html`<form method="post" action="${PATH}/${key.key_id}/revoke">${csrfField(request.session)}<button type="submit" class="danger" aria-label="${words.revokeLabel(key.key_id)}">${words.revoke}</button></form>` : undefined}</td></tr>`,
  );
  return html`<table><thead><tr><th scope="col">${words.key}</th><th scope="col">${words.startsWith}</th><th scope="col">${words.mode}</th>
<th scope="col">${words.createdAt}</th><th scope="col">${words.state}</th><th scope="col">${words.action}</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="6">${words.none}</td></tr>`}</tbody></table>`;
}
