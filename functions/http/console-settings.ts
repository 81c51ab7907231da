import { type CheckoutSettings, logoImageSource } from '../domain/checkout-settings.ts';
import { mayPerform } from '../domain/console-access.ts';
import { ValidationError } from '../domain/errors.ts';
import {
  type CheckoutSettingsDependencies,
  getCheckoutSettings,
  putCheckoutSettings,
} from '../use-cases/checkout-settings.ts';
import { checkoutSettingsRequest } from './checkout-settings-schemas.ts';
import { CONSOLE_BASE, consolePage, consoleRedirect, csrfField } from './console-page.ts';
import type { ConsoleRequest } from './console-routes.ts';
import type { FieldError } from './console-views.ts';
import { type Html, html } from './html.ts';
import type { HtmlResult } from './html-handler.ts';
import { validate } from './validate.ts';

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
      const notice = request.event.queryStringParameters?.notice === 'saved' ? 'Settings saved.' : undefined;
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
      return settingsPage(request, typed, { preview: { ...input }, notice: 'Preview: not saved yet.' });
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

/** The top of a checkout page and its pay button, with this branding. */
function previewOf(settings: Preview, imageSource: string | undefined): Html {
  const name = settings.display_name ?? 'Your shop';
  return html`<section class="preview" aria-label="Checkout preview"><header>
${imageSource && settings.logo_url ? html`<img src="${settings.logo_url}" alt="${name}">` : undefined}<p><strong>${name}</strong></p></header>
<p>Order 1001</p><p><strong>€10.00</strong></p><span class="pay">Continue to payment</span>
${settings.support_email ? html`<p>Questions? ${settings.support_email}</p>` : undefined}</section>`;
}

function settingsPage(
  request: ConsoleRequest,
  shown: Shown,
  extra: { notice?: string | undefined; errors?: FieldError[]; status?: number; preview?: Preview },
): HtmlResult {
  const { session } = request;
  const editable = mayPerform(session.role, 'settings.edit');
  const field = (name: keyof Shown, label: string, type = 'text') =>
    html`<label for="${name}">${label}</label><input id="${name}" name="${name}" type="${type}" value="${shown[name]}"${editable ? undefined : html` readonly`}>`;
  const imageSource = extra.preview?.logo_url ? logoImageSource(extra.preview.logo_url) : undefined;
  const body = html`<h1>Checkout settings</h1>
${extra.notice ? html`<p class="notice" role="status">${extra.notice}</p>` : undefined}
${extra.errors?.length ? html`<div class="error" role="alert"><ul>${extra.errors.map((error) => html`<li>${error.pointer}: ${error.detail}</li>`)}</ul></div>` : undefined}
<form method="post" action="${PATH}">${csrfField(session)}
${field('display_name', 'Display name')}${field('logo_url', 'Logo URL (https)', 'url')}
${field('accent_color', 'Accent colour (#rrggbb, dark enough for white text)')}${field('support_email', 'Support e-mail', 'email')}
${editable ? html`<p><button type="submit" name="action" value="preview">Preview</button> <button type="submit" name="action" value="save">Save</button></p>` : undefined}</form>
<h2>How buyers see it</h2>${previewOf(extra.preview ?? {}, imageSource)}`;
  const accent = extra.preview?.accent_color;
  return consolePage({
    status: extra.status ?? 200,
    title: 'Checkout settings',
    https: request.https,
    session,
    path: PATH,
    body,
    preview: { style: accent ? `:root{--accent:${accent}}` : undefined, imageSource },
  });
}
