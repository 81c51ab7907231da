import type { BuyerDetail, CollectRequirement } from '../../../domain/buyer.ts';
import type { CustomFieldType } from '../../../domain/custom-fields.ts';
import type { Mode } from '../../../domain/principal.ts';
import type { DatePreset } from '../../../domain/time-zones.ts';
import type { PaymentTexts } from './payment-texts.ts';
import type { SettlementTexts } from './settlement-texts.ts';
import type { StatusTexts } from './status-texts.ts';
import type { SubscriptionTexts } from './subscription-texts.ts';
import type { WebhookTexts } from './webhook-texts.ts';

/**
 * The console's texts in the checkout's languages (docs/console.md#languages): every page's own words. One object
 * per language with the same keys, so a missing translation is a type error. Values the API defines (a link's
 * status, a role, an action, an event type) and the API's validation messages stay as the API spells them.
 */
export interface ConsoleMessages {
  consoleName: string;
  navLabel: string;
  nav: {
    overview: string;
    links: string;
    newLink: string;
    payments: string;
    refunds: string;
    subscriptions: string;
    settlements: string;
    webhooks: string;
    psps: string;
    settings: string;
    keys: string;
    exports: string;
    audit: string;
  };
  banner: Record<Mode, string>;
  switchTo: (mode: Mode) => string;
  signOut: string;
  /** The one search box of every page (docs/console.md#search). */
  search: {
    label: string;
    button: string;
    title: string;
    /** Nothing found for the words searched: what the box finds. */
    nothing: (query: string) => string;
    finds: string;
    found: (count: number, query: string) => string;
    /** The results hold the most one search shows: more may match. */
    more: string;
    newestFirst: string;
    type: string;
    id: string;
    types: { payment: string; refund: string; link: string };
  };
  signInTitle: string;
  signInHeading: string;
  signInButton: string;
  /** How to get a link locally: before the `npm start` code, between it and the command, after the command. */
  signInLocal: readonly [string, string, string];
  signInRefused: string;
  signedOutTitle: string;
  signedOutText: string;
  formExpiredTitle: string;
  formExpiredText: string;
  notAllowedTitle: string;
  notAllowedText: (role: string) => string;
  notFoundTitle: string;
  notFoundText: string;
  links: {
    title: string;
    status: string;
    anyStatus: string;
    linkId: string;
    reference: string;
    /** The caption of the links found by a payment's `client_reference_id`, before it. */
    withReference: string;
    filter: string;
    newestFirst: string;
    description: string;
    amount: string;
    created: string;
    link: string;
    none: string;
    older: string;
    buyerChooses: string;
    metadataKey: string;
    metadataValue: string;
    /** The caption of the links found by a metadata value. */
    withMetadata: (key: string, value: string) => string;
    metadataKeyMissing: string;
    /** A search by a reference no payment can carry. */
    referenceProblem: string;
  };
  /** A link's own page: its details, payments, refund form, refunds and webhook events. */
  link: {
    title: (id: string) => string;
    notices: { created: string; canceled: string; refunded: string };
    qrLabel: string;
    cancel: string;
    use: string;
    reusable: (paid: number, maximum: number | null | undefined) => string;
    singlePayment: string;
    asks: string;
    paymentMethods: string;
    anyMethod: string;
    checkoutLanguage: string;
    buyersBrowser: string;
    checkoutUrl: string;
    expires: string;
    /** A line item: its quantity, name and formatted unit amount. */
    lineItem: (quantity: number, name: string, unitAmount: string) => string;
    buyerPicks: (minimum: number, maximum: number) => string;
    chosenByBuyer: string;
    chosenBetween: (minimum: string, maximum: string) => string;
    details: Record<Exclude<BuyerDetail, 'shipping_address'>, string>;
    requirement: Record<CollectRequirement, string>;
    shippingTo: (countries: string) => string;
    nothing: string;
    noPayments: string;
    rule: (rule: string) => string;
    /** What marks a decision besides its strategy (`RoutingDecision.exploration`, `.recovery`). */
    routingNotes: Record<'exploration' | 'recovery' | 'holdout', string>;
    candidates: (count: number) => string;
    /** A candidate's paid share (a formatted percentage) and the sessions behind it. */
    candidateEvidence: (paidShare: string, sessions: number) => string;
    noEvidence: string;
    expectedFee: (fee: string) => string;
    chosen: string;
    eliminated: string;
    noRefunds: string;
    webhooks: string;
    noAnswer: string;
    attemptsInAll: (count: number) => string;
    noEvents: string;
  };
  /** The column headings of the tables of payments, refunds and webhook events, wherever they are listed. */
  columns: {
    payment: string;
    refund: string;
    status: string;
    amount: string;
    description: string;
    link: string;
    routing: string;
    reference: string;
    buyer: string;
    answers: string;
    started: string;
    created: string;
    event: string;
    attempts: string;
  };
  /** What a payment's cells say of its buyer (payment-cells.ts). */
  buyer: {
    erasedOn: (date: string) => string;
    hidden: string;
    billing: (address: string) => string;
    shipping: (address: string) => string;
    quantities: (list: string) => string;
    erase: string;
  };
  /** The account's payments and refunds, the export form and the erasure's confirmation. */
  books: {
    payments: string;
    refunds: string;
    exports: string;
    newestFirst: string;
    noPayments: string;
    noRefunds: string;
    /** A succeeded payment some of whose amount was refunded: what is left of it. */
    partlyRefunded: (left: string) => string;
    /** A succeeded payment refunded in full. */
    refunded: string;
    /** The one-click periods, days of the account's time zone (`presetPeriods`), and their group's name. */
    presets: Record<DatePreset, string>;
    presetsLabel: string;
    /** The totals of the selection per currency (`GET /v1/payments/summary`'s use case). */
    totals: {
      caption: (from: string, to: string) => string;
      currency: string;
      payments: string;
      gross: string;
      refunded: string;
      fees: string;
      net: string;
      /** Succeeded payments whose fee is not known, counted with none. */
      withoutFee: (count: number) => string;
      /** The period held more payments than one request adds up. */
      partial: string;
      pickPeriod: string;
    };
    older: string;
    filter: string;
    from: string;
    to: string;
    anyStatus: string;
    clientReference: string;
    linkId: string;
    connectionId: string;
    /** What an export is, in plain words (the API's terms are in docs/console.md). */
    exportIntro: string;
    exportNotMade: string;
    /** The export's two buttons: the payments, or the refunds, of the period. */
    downloadPayments: string;
    downloadRefunds: string;
    eraseTitle: string;
    /** Before and after the payment's id. */
    eraseQuestion: readonly [string, string];
    /** Before and after the link's id, above the list of the buyer's other attempts erased too. */
    eraseAlso: readonly [string, string];
    /** Before and after the link's id, when the buyer has no other attempt on it to erase. */
    eraseNoOthers: readonly [string, string];
    /** What the erasure cannot find (docs/security.md#personal-data). */
    eraseUnlinked: string;
    eraseEffect: string;
    erase: string;
    keep: string;
  };
  audit: {
    title: string;
    intro: string;
    /** A target's amount: "of €10.00". */
    ofAmount: (amount: string) => string;
    /** Between a target and what it belongs to: "refund re_… of €10.00 on payment pay_…". */
    on: string;
    /** Who made a change outside the console: "API key svc_test_AbCd… (key_…)". */
    via: { api: string; cli: string };
    when: string;
    who: string;
    what: string;
    target: string;
    mode: string;
    from: string;
    /** The column of what became of it; the outcomes and reasons themselves stay as the log spells them. */
    outcome: string;
    none: string;
  };
  keys: {
    title: string;
    intro: (mode: Mode) => string;
    create: (mode: Mode) => string;
    created: string;
    revoked: string;
    key: string;
    startsWith: string;
    mode: string;
    createdAt: string;
    state: string;
    action: string;
    active: string;
    revokedAt: (when: string) => string;
    revoke: string;
    revokeLabel: (id: string) => string;
    none: string;
  };
  psps: {
    title: string;
    saved: string;
    notSaved: string;
    connections: string;
    routing: string;
    routingLabel: readonly [string, string];
    saveRouting: string;
    connection: string;
    provider: string;
    state: string;
    health: string;
    methods: string;
    fees: string;
    lastHour: string;
    last24h: string;
    enabled: string;
    disabled: string;
    openedPaid: (opened: number, paid: string) => string;
    none: string;
  };
  settings: {
    saved: string;
    previewNotice: string;
    displayName: string;
    logoUrl: string;
    accentColor: string;
    supportEmail: string;
    preview: string;
    save: string;
    howBuyersSee: string;
    previewLabel: string;
    yourShop: string;
    order: string;
    questions: string;
  };
  overview: {
    title: string;
    window: string;
    days: (count: number) => string;
    truncated: (count: number) => string;
    paymentsTitle: (days: number) => string;
    paymentsDescription: (payments: number, paid: number) => string;
    amountTitle: (days: number) => string;
    amountDescription: string;
    conversionTitle: (days: number) => string;
    conversionDescription: string;
    connectionsTitle: string;
    connectionsDescription: string;
    perDay: string;
    day: string;
    payments: string;
    paid: string;
    notPaid: string;
    amountPaid: string;
    conversion: string;
    currency: string;
    paidShare: string;
    connection: string;
    opened: string;
    connectionsCaption: string;
    noConnections: string;
    /** What routing that learns earned against its holdout (docs/console.md#overview). */
    upliftTitle: (days: number) => string;
    upliftDescription: string;
    upliftAxis: string;
    upliftCaption: (days: number) => string;
    allRules: string;
    rule: string;
    learning: string;
    holdout: string;
    /** A difference in points with its interval: `+2.1 (0.4 to 3.8)`. */
    difference: string;
    interval: (estimate: string, low: string, high: string) => string;
    /** An arm's checkouts and paid share: `950 checkouts, 81 % paid`. */
    arm: (checkouts: number, share: string) => string;
    extraPayments: string;
    extraAmount: string;
    beyondChance: string;
    maybeChance: string;
    noUplift: string;
  };
  /** The create-link form; the API's own validation messages stay as the API gives them. */
  linkForm: {
    title: string;
    notCreated: string;
    /** Where an error of the request as a whole is shown, instead of a field's pointer. */
    wholeRequest: string;
    amount: string;
    amountKinds: Record<'fixed' | 'line_items' | 'amount_range', string>;
    currency: string;
    fixedAmount: string;
    lineItems: string;
    itemName: string;
    quantity: string;
    unitPrice: string;
    buyerPicksQuantity: string;
    least: string;
    most: string;
    itemNameLabel: (row: number) => string;
    itemQuantityLabel: (row: number) => string;
    itemPriceLabel: (row: number) => string;
    itemAdjustableLabel: (row: number) => string;
    itemLeastLabel: (row: number) => string;
    itemMostLabel: (row: number) => string;
    rangeMinimum: string;
    rangeMaximum: string;
    description: string;
    methods: string;
    use: string;
    reusable: string;
    maxPayments: string;
    checkoutLanguage: string;
    buyersBrowser: string;
    askBuyer: string;
    details: Record<'email' | 'phone' | 'billing_address', string>;
    notAsked: string;
    /** How a requirement of `collect` reads (the form sends the API's own word). */
    requirements: Record<CollectRequirement, string>;
    shippingCountries: string;
    ownQuestions: (most: number) => string;
    question: (slot: number) => string;
    type: string;
    noType: string;
    /** How a custom field's type reads (the form sends the API's own word). */
    fieldTypes: Record<CustomFieldType, string>;
    key: string;
    label: string;
    optional: string;
    shortest: string;
    longest: string;
    /** The dropdown options' label, before the format of a line. */
    dropdownOptions: string;
    dropdownLine: string;
    expiresAt: string;
    redirectUrl: string;
    webhookUrl: string;
    create: string;
  };
  /** A payment's own page (payment-texts.ts). */
  payment: PaymentTexts;
  /** The words for the API's values: statuses, event types, roles, actions (status-texts.ts). */
  status: StatusTexts;
  /** The settlements pages (settlement-texts.ts). */
  settlement: SettlementTexts;
  /** The subscriptions pages (subscription-texts.ts). */
  subscription: SubscriptionTexts;
  /** The webhooks page, an event's and an endpoint's (webhook-texts.ts). */
  webhooks: WebhookTexts;
  /** The deployed stack's sign-in through the user pool's hosted page. */
  hostedSignIn: {
    refused: string;
  };
}
