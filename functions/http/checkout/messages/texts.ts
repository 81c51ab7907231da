import type { FormProblemCode } from '../../../domain/checkout/buyer-answers.ts';
import type { Interval } from '../../../domain/subscription-schedule.ts';

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
  /** What buyers read of a subscription (docs/subscriptions.md#what-the-buyer-is-told). */
  subscription: SubscriptionMessages;
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

/**
 * What buyers read of subscriptions on our pages: the terms before they pay, how to cancel after, and the cancel
 * link's page (functions/http/checkout/subscription-views.ts, subscription-cancel-views.ts).
 */
export interface SubscriptionMessages {
  /** "every month", "every 3 months". */
  every(interval: Interval, count: number): string;
  /** What the buyer agrees to: the amount, how often, and for how long. */
  terms(amount: string, every: string, cycles: number | null): string;
  /** A trial before it. */
  trial(days: number): string;
  /** How to cancel, told before paying and again after: the merchant sends a cancel link. */
  howToCancel(merchant: string | undefined): string;
  /** On the PSP's page of an update link: the method paying now is charged for the later periods too. */
  laterPeriods: string;
  /** The page's title after a paid subscription link. */
  subscribedText: string;
  cancelTitle: string;
  cancelButton: string;
  /** The next charge, on the cancel page. */
  nextCharge(date: string): string;
  /** After the cancel: nothing more is charged; it ends with the period paid. */
  canceledAtEnd(date: string): string;
  canceledNow: string;
  alreadyOver: string;
  usedText: string;
  expiredText: string;
  notFoundTitle: string;
  notFoundText: string;
}
