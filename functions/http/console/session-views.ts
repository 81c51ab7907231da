import type { AuditEntry } from '../../domain/console-access.ts';
import type { PageLanguage } from '../../domain/locale.ts';
import { formatAmount, type Html, html } from '../html.ts';
import { type ConsoleMessages, consoleMessages } from './messages.ts';
import { CONSOLE_BASE, when } from './page.ts';

/** The pages of the session itself, which any cold start of the console may draw: signing in, the audit log. */

/** Where an audited id's page is, by its prefix; the ids whose page needs more than the id have none. */
const PAGES: Partial<Record<string, string>> = {
  pl: 'links',
  evt: 'events',
  we: 'webhooks',
  sub: 'subscriptions',
};

/** An id in words, by its prefix ("refund re_…"), linked to its page where it has one. */
function idText(target: string, words: ConsoleMessages['status']): Html | string {
  const prefix = /^([a-z]+)_/.exec(target)?.[1] ?? '';
  const kind = Object.hasOwn(words.targets, prefix)
    ? words.targets[prefix as keyof typeof words.targets]
    : '';
  const page = PAGES[prefix];
  const id = page ? html`<a href="${CONSOLE_BASE}/${page}/${target}">${target}</a>` : target;
  return kind ? html`${kind} ${id}` : id;
}

/** What an entry's target is, in words: "refund re_… of €10.00 on payment pay_…", or its id's kind alone. */
function targetText(entry: AuditEntry, language: PageLanguage): Html | string {
  if (entry.target === null) return '–';
  const { status, audit: words } = consoleMessages(language);
  const { amount, of } = entry.about ?? {};
  const worth = amount ? ` ${words.ofAmount(formatAmount(amount, language))}` : '';
  const owner = of ? html` ${words.on} ${idText(of, status)}` : '';
  return html`${idText(entry.target, status)}${worth}${owner}`;
}

/** Who made an entry's change: the console user and their role, or the API key or operator, said as such. */
function whoText(entry: AuditEntry, language: PageLanguage): string {
  const { status, audit: words } = consoleMessages(language);
  if (entry.user === null) return '–';
  if (entry.via) return `${words.via[entry.via]} ${entry.user}`;
  return `${entry.user} (${entry.role ? status.roles[entry.role] : '–'})`;
}

/** The audit log of the account: who did what, from where, with what outcome, in words and the log's own. */
export function auditBody(entries: AuditEntry[], language: PageLanguage): Html {
  const { audit: words, status } = consoleMessages(language);
  const rows = entries.map(
    (
      entry,
    ) => html`<tr><td class="nowrap">${when(entry.at)}</td><td>${whoText(entry, language)}</td><td>${status.actions[entry.action]} <code>${entry.action}</code></td>
<td>${targetText(entry, language)}</td><td>${entry.mode ?? '–'}</td><td>${entry.source_ip}</td><td>${status.outcomes[entry.outcome]}${entry.reason ? ` (${entry.reason})` : ''}</td></tr>`,
  );
  return html`<h1>${words.title}</h1><p>${words.intro}</p>
<table><thead><tr><th scope="col">${words.when}</th><th scope="col">${words.who}</th><th scope="col">${words.what}</th><th scope="col">${words.target}</th><th scope="col">${words.mode}</th><th scope="col">${words.from}</th><th scope="col">${words.outcome}</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="7">${words.none}</td></tr>`}</tbody></table>`;
}

/** The page for a visitor without a session: how to get one. */
export function signInBody(
  problem: string | undefined,
  hostedSignIn: string | undefined,
  words: ConsoleMessages,
): Html {
  const [before, between, after] = words.signInLocal;
  const how = hostedSignIn
    ? html`<p><a href="${hostedSignIn}">${words.signInButton}</a></p>`
    : html`<p>${before} <code>npm start</code> ${between}
<code>npm run console -- sign-in-link --account acct_demo --role admin</code>${after}</p>`;
  return html`<h1>${words.signInHeading}</h1>${problem ? html`<p class="error" role="alert">${problem}</p>` : undefined}${how}`;
}
