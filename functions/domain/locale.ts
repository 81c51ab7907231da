/**
 * The buyer's language (docs/checkout.md#languages). Our pages speak the languages of `PAGE_LANGUAGES`; a link
 * may fix one with `locale` (a language, optionally with a region: `nl`, `nl-BE`), else the buyer's
 * `Accept-Language` decides, else English. The same tag formats amounts and dates (Intl) and goes to the PSP's
 * hosted page in the PSP's own spelling (each adapter maps it).
 */
export const PAGE_LANGUAGES = ['en', 'nl', 'de', 'fr', 'es'] as const;
export type PageLanguage = (typeof PAGE_LANGUAGES)[number];

/** A link's `locale`: one of our languages, optionally with an ISO 3166 region in upper case. */
export const LOCALE_PATTERN = /^(en|nl|de|fr|es)(-[A-Z]{2})?$/;
export const MAX_LOCALE_LENGTH = 5;

export const languageOf = (tag: string): PageLanguage => {
  const language = tag.slice(0, 2).toLowerCase();
  return (PAGE_LANGUAGES as readonly string[]).includes(language) ? (language as PageLanguage) : 'en';
};

/**
 * The tag the buyer's page uses: the link's own `locale`, else the `Accept-Language` entry with the highest
 * weight (ties: the order given) whose language we speak, kept with its region (`nl-BE`), else `en`.
 */
export function resolveLocale(
  linkLocale: string | null | undefined,
  acceptLanguage: string | undefined,
): string {
  if (linkLocale && LOCALE_PATTERN.test(linkLocale)) return linkLocale;
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((entry, index) => {
      const [tag = '', ...params] = entry.trim().split(';');
      const q = params.map((param) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/.exec(param)?.[1]).find(Boolean);
      return { tag: tag.trim(), weight: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  for (const { tag } of ranked) {
    const match = /^([A-Za-z]{2})(?:-([A-Za-z]{2}))?(?:-|$)/.exec(tag);
    const language = match?.[1]?.toLowerCase();
    if (!language || !(PAGE_LANGUAGES as readonly string[]).includes(language)) continue;
    return match?.[2] ? `${language}-${match[2].toUpperCase()}` : language;
  }
  return 'en';
}
