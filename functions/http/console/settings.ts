import { type CheckoutSettings, logoImageSource } from '../../domain/checkout-settings.ts';
import { mayPerform } from '../../domain/console-access.ts';
import { ValidationError } from '../../domain/errors.ts';
import type { PageLanguage } from '../../domain/locale.ts';
import {
  type CheckoutSettingsDependencies,
  getCheckoutSettings,
  putCheckoutSettings,
} from '../../use-cases/checkout-settings.ts';
import { checkoutSettingsRequest } from '../api/checkout-settings-schemas.ts';
import { messagesFor } from '../checkout/messages.ts';
import { formatAmount, type Html, html } from '../html.ts';
import type { HtmlResult } from '../html-handler.ts';
import { validate } from '../validate.ts';
import { consoleMessages } from './messages.ts';
import { CONSOLE_BASE, consolePage, consoleRedirect, csrfField } from './page.ts';
import type { ConsoleRequest } from './request.ts';
import type { FieldError } from './views.ts';

export type SettingsPageDependencies = CheckoutSettingsDependencies;

const PATH = `${CONSOLE_BASE}/settings`;
const FIELDS = ['display_name', 'logo_url', 'accent_color', 'support_email'] as const;
type Shown = Record<(typeof FIELDS)[number], string>;

/** The checkout settings page: the branding of the mode's checkout pages, previewed before it is saved. */
export async function settingsRoutes(
  request: ConsoleRequest,
  deps: SettingsPageDependencies,
): Promise<HtmlResult | undefined> {
  switch (request.route) {
    case 'GET /console/settings': {
      const stored = await getCheckoutSettings(deps, request.session);
      const saved = request.event.queryStringParameters?.notice === 'saved';
      const notice = saved ? consoleMessages(request.language).settings.saved : undefined;
      return settingsPage(request, shownOf(stored), { notice, preview: stored });
    }
    case 'POST /console/settings':
      return submit(request, deps);
    default:
      return undefined;
  }
}

const shownOf = (settings: Pick<CheckoutSettings, (typeof FIELDS)[number]>): Shown =>
  Object.fromEntries(FIELDS.map((field) => [field, settings[field] ?? ''])) as Shown;

/**
 * The form as `PUT /v1/checkout-settings` takes it, validated by its schema: **Preview** shows it as buyers
 * would see it and saves nothing; **Save** replaces the settings through the API's use case.
 */
async function submit(request: ConsoleRequest, deps: SettingsPageDependencies): Promise<HtmlResult> {
  const typed = Object.fromEntries(
    FIELDS.map((field) => [field, request.form.get(field)?.trim() ?? '']),
  ) as Shown;
  try {
    const input = validate(
      checkoutSettingsRequest(),
      Object.fromEntries(Object.entries(typed).map(([field, value]) => [field, value || null])),
    );
    if (request.form.get('action') !== 'save') {
      return settingsPage(request, typed, {
        preview: { ...input },
        notice: consoleMessages(request.language).settings.previewNotice,
      });
    }
    await putCheckoutSettings(deps, request.session, input);
    await request.audit('settings.edit', null);
    return consoleRedirect(`${PATH}?notice=saved`, request.https);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return settingsPage(request, typed, { errors: error.errors, status: 422 });
  }
}

type Preview = Partial<Pick<CheckoutSettings, (typeof FIELDS)[number]>>;

/** The top of a checkout page and its pay button (`pay`, in the checkout's words), with this branding. */
function previewOf(
  settings: Preview,
  imageSource: string | undefined,
  language: PageLanguage,
  pay: string,
): Html {
  const words = consoleMessages(language).settings;
  const name = settings.display_name ?? words.yourShop;
  return html`<section class="preview" aria-label="${words.previewLabel}"><header>
${imageSource && settings.logo_url ? html`<img src="${settings.logo_url}" alt="${name}">` : undefined}<p><strong>${name}</strong></p></header>
<p>${words.order}</p><p><strong>${formatAmount({ value: '10.00', currency: 'EUR' }, language)}</strong></p><span class="pay">${pay}</span>
${settings.support_email ? html`<p>${words.questions} ${settings.support_email}</p>` : undefined}</section>`;
}

async function settingsPage(
  request: ConsoleRequest,
  shown: Shown,
  extra: { notice?: string | undefined; errors?: FieldError[]; status?: number; preview?: Preview },
): Promise<HtmlResult> {
  const { session } = request;
  const editable = mayPerform(session.role, 'settings.edit');
  const field = (name: keyof Shown, label: string, type = 'text') =>
    html`<label for="${name}">${label}</label><input id="${name}" name="${name}" type="${type}" value="${shown[name]}"${editable ? undefined : html` readonly`}>`;
  const imageSource = extra.preview?.logo_url ? logoImageSource(extra.preview.logo_url) : undefined;
  const { language } = request;
  const words = consoleMessages(language).settings;
  const title = consoleMessages(language).nav.settings;
  const pay = (await messagesFor(language)).continueToPayment;
  const body = html`<h1>${title}</h1>
${extra.notice ? html`<p class="notice" role="status">${extra.notice}</p>` : undefined}
${extra.errors?.length ? html`<div class="error" role="alert"><ul>${extra.errors.map((error) => html`<li>${error.pointer}: ${error.detail}</li>`)}</ul></div>` : undefined}
<form method="post" action="${PATH}">${csrfField(session)}
${field('display_name', words.displayName)}${field('logo_url', words.logoUrl, 'url')}
${field('accent_color', words.accentColor)}${field('support_email', words.supportEmail, 'email')}
${editable ? html`<p><button type="submit" name="action" value="preview">${words.preview}</button> <button type="submit" name="action" value="save">${words.save}</button></p>` : undefined}</form>
<h2>${words.howBuyersSee}</h2>${previewOf(extra.preview ?? {}, imageSource, language, pay)}`;
  const accent = extra.preview?.accent_color;
  return consolePage({
    status: extra.status ?? 200,
    title,
    language,
    https: request.https,
    session,
    path: PATH,
    body,
    preview: { style: accent ? `:root{--accent:${accent}}` : undefined, imageSource },
  });
}
