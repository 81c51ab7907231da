import type { FormProblemCode } from '../../../domain/checkout/buyer-answers.ts';

/**
 * Every text of our buyer-facing pages, in each language of `PAGE_LANGUAGES` (docs/checkout.md#languages).
 * One object per language with the same keys, so a missing translation is a type error, not an English gap.
 */
export interface Messages {
  notFoundTitle: string;
  notFoundText: string;
  paidTitle: string;
  paidHeading: string;
  paidText: string;
  expiredTitle: string;
  expiredHeading: string;
  expiredText: string;
  canceledTitle: string;
  canceledHeading: string;
  canceledText: string;
  completedTitle: string;
  completedHeading: string;
  completedText: string;
  requestTitle: string;
  continueToPayment: string;
  notCompletedHeading: string;
  notCompletedText: string;
  tryAgain: string;
  otherProvider: string;
  securePage: string;
  unavailableTitle: string;
  unavailableHeading: string;
  unavailableText: string;
  throttledTitle: string;
  throttledText: string;
  /** A reusable link whose places (`max_payments`) are all taken by payments and other buyers' open sessions. */
  fullTitle: string;
  fullText: string;
  receivedTitle: string;
  receivedText: string;
  thankYou: string;
  confirmingText: string;
  chooseAmountLabel: string;
  amountHint: (minimum: string, maximum: string) => string;
  amountInvalid: (minimum: string, maximum: string) => string;
  /** A chosen amount within the range that no payment provider of the link can take. */
  amountNotPayable: string;
  /**
   * An entry that reads as two amounts (`12.500` with three decimals): both, as amounts, then how to type each so
   * that it reads one way only (functions/domain/amount.ts `parseBuyerDecimal`).
   */
  amountAmbiguous: (
    asDecimal: string,
    asThousands: string,
    typeDecimal: string,
    typeThousands: string,
  ) => string;
  /** Before the title of a page that refused the buyer's answer (screen readers announce the title first). */
  errorPrefix: string;
  item: string;
  quantity: string;
  unitPrice: string;
  total: string;
  includesTax: (rate: string) => string;
  contact: string;
  logoAlt: string;
  errorTitle: string;
  errorText: string;
  providerDownTitle: string;
  providerDownText: string;
  notSetUpTitle: string;
  notSetUpText: string;
  reference: string;
  expiresOn: (date: string) => string;
  /** A passing failure (a 503 with `Retry-After`): the same request may work in a moment. */
  passingTitle: string;
  passingText: string;
  /**
   * The sandbox PSP's page (functions/http/checkout/sandbox-views.ts). Its two buttons keep the names the product gives
   * them, **Pay** and **Decline**, in every language (docs/checkout.md#sandbox).
   */
  sandboxTitle: string;
  sandboxNote: string;
  sandboxPay: (amount: string) => string;
  sandboxBack: string;
  sandboxComplete: string;
  sandboxPaid: (amount: string) => string;
  sandboxContinue: string;
  sandboxDeclined: string;
  sandboxDeclinedNotice: string;
  sandboxBackToMerchant: string;
  sandboxExpired: string;
  sandboxStartAgain: string;
  /** A payment under way (a `--simulate processing` connection): it succeeds shortly, seen on a reload. */
  sandboxProcessing: string;
  sandboxProcessingText: (amount: string) => string;
  /** The "before you pay" form (docs/checkout.md#buyer-details, #custom-fields, #quantities). */
  form: FormMessages;
}

/** The texts of the "before you pay" form: its labels, hints and why an answer was refused. */
export interface FormMessages {
  title: string;
  /** After a field's label: the buyer must answer it. */
  required: string;
  optional: string;
  /** At the top of a refused form: the fields below say what to fix. */
  fixBelow: string;
  contactLegend: string;
  email: string;
  phone: string;
  phoneHint: string;
  billingAddress: string;
  shippingAddress: string;
  name: string;
  line1: string;
  line2: string;
  city: string;
  postalCode: string;
  state: string;
  country: string;
  chooseCountry: string;
  quantitiesLegend: string;
  quantityOf: (item: string) => string;
  quantityHint: (minimum: number, maximum: number) => string;
  questionsLegend: string;
  chooseOption: string;
  lengthHint: (minimum: number, maximum: number) => string;
  digitsHint: (minimum: number, maximum: number) => string;
  /** The quantities picked add up to a total that no payment provider of the link can take. */
  totalNotPayable: string;
  problems: Record<FormProblemCode, string>;
}
