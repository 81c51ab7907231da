import type { AmountDue, LineItem } from '../amount.ts';
import { BUYER_DETAILS, type BuyerDetail, collectNeeding, type PageAsks } from '../buyer.ts';
import type { PspConnection } from '../connection.ts';
import type { Amount } from '../money.ts';
import type { PaymentLink } from '../payment-link.ts';
import { amountProblem, type PspRules } from '../psp-rules.ts';
import {
  type AnswersRead,
  asksFirst,
  type CheckoutAnswers,
  detailsAsked,
  detailsMissingFor,
  mayAskFirst,
  readAnswers,
} from './answers.ts';
import type { FormProblem, PostedForm } from './buyer-answers.ts';
import type { FormTables } from './form-tables.ts';

/**
 * The "before you pay" step of the checkout page (docs/checkout.md#buyer-details, #custom-fields, #quantities):
 * which questions our page asks before a session is opened, and which connections a session may then open at.
 */

/**
 * What each provider's PSP can take and ask, from its descriptor (`PspConnections.rules`,
 * functions/use-cases/psp-connections.ts): the domain knows no PSP by name.
 */
export interface RulesOfProviders {
  rules(provider: string): PspRules;
}

/** The form our page shows before the PSP's (the `ask` view), with what the buyer posted and what was refused. */
export interface AskedForm {
  /** The buyer details it asks (`detailsAsked`, and any the buyer was asked before). */
  details: BuyerDetail[];
  /** What the buyer posted, shown again (personal data: rendered, never logged). */
  values: PostedForm;
  problems: FormProblem[];
  /** The buyer asked for another payment provider (`?via=next`): the form carries it on. */
  via?: string | undefined;
}

/** What a posted form answered, carried to the session that opens and recorded on its payment. */
export interface PostedAnswers {
  answers: CheckoutAnswers;
  /** The lines as the buyer picked them (a link with an adjustable line): the PSP is sent these. */
  lines?: LineItem[] | undefined;
  /** The details the form asked. */
  asked: BuyerDetail[];
}

/**
 * The form for the page, when the link asks anything first: the details our page asks before a PSP's page that
 * can ask `page` (the connection that serves the amount shown), with those asked already and those that the
 * candidates of a session need (`extra`).
 */
export function askedForm(
  link: PaymentLink,
  page: PageAsks | undefined,
  posted: { form?: PostedForm | undefined; problems?: FormProblem[]; asked?: BuyerDetail[] },
  extra: readonly BuyerDetail[] = [],
): AskedForm | undefined {
  const wanted = new Set([...detailsAsked(link, page), ...(posted.asked ?? []), ...extra]);
  const details = BUYER_DETAILS.filter((detail) => wanted.has(detail));
  if (!asksFirst(link, details)) return undefined;
  return { details, values: posted.form ?? new Map(), problems: posted.problems ?? [] };
}

/**
 * The link as our page asks and reads it for a buyer whom `routed` may serve: each detail their PSPs need for every
 * session (`PspRules.needs`: a PSP that takes no payment without the buyer's e-mail) is asked as required, whatever
 * its `collect` says (docs/checkout.md#details-a-psp-needs); the link itself when none needs any. For asking and
 * reading the form only: the link stored never changes.
 */
export function linkAsAsked(
  link: PaymentLink,
  routed: readonly PspConnection[],
  psps: RulesOfProviders,
): PaymentLink {
  const needs = [...new Set(routed.flatMap((connection) => psps.rules(connection.provider).needs ?? []))];
  const collect = collectNeeding(link.collect, needs);
  return collect === link.collect ? link : { ...link, collect };
}

/**
 * What the page of the first routed connection that can take the amount shown can ask: the page the form
 * prepares for.
 */
export function servingPage(
  routed: readonly PspConnection[],
  amount: Amount,
  psps: RulesOfProviders,
): PageAsks | undefined {
  const serving =
    routed.find((connection) => !amountProblem(psps.rules(connection.provider).amounts, amount, 'payment')) ??
    routed[0];
  return serving && psps.rules(serving.provider).pageAsks;
}

/**
 * The candidates a session may open at with what the buyer was asked: a connection whose page cannot ask a
 * required detail the buyer was not asked is left out (a session there would miss it). `missing`: what the
 * first candidate needs when none is left, so the page asks it.
 */
export function candidatesWithDetails(
  link: PaymentLink,
  candidates: readonly PspConnection[],
  asked: readonly BuyerDetail[],
  psps: RulesOfProviders,
): { candidates: PspConnection[]; missing: BuyerDetail[] } {
  const missingAt = (connection: PspConnection) =>
    detailsMissingFor(link, psps.rules(connection.provider).pageAsks, asked);
  const usable = candidates.filter((connection) => missingAt(connection).length === 0);
  const first = candidates[0];
  const missing = usable.length === 0 && first ? missingAt(first) : [];
  return { candidates: usable, missing };
}

/** What a visit's posted answers come to (`readPosted`). */
export type PostedVisit =
  /** Refused: the form again, saying why (the amount's problem, the answers' problems). */
  | {
      refused: {
        problem?: Extract<AmountDue, { ok: false }>['problem'];
        form: AskedForm | undefined;
      };
    }
  /**
   * Accepted: the amount a session charges (undefined: not known yet) and the answers it carries; `unanswered`
   * when the link may ask first and its form was not posted (a visit, or the amount form alone).
   */
  | { amount: Amount | undefined; answered?: PostedAnswers; unanswered?: true };

/** The form again, with why the amount (`due`) or the answers (`read`) were refused. */
function refusal(
  link: PaymentLink,
  due: AmountDue | undefined,
  form: PostedForm | undefined,
  read: AnswersRead | undefined,
) {
  const problems = read?.ok === false ? { problems: read.problems, asked: read.asked } : {};
  return {
    ...(due && !due.ok ? { problem: due.problem } : {}),
    form: askedForm(link, undefined, { form, ...problems }),
  };
}

/**
 * Reads what the buyer posted: the amount they chose (`due`, a range link) and the "before you pay" form
 * (`readAnswers`, with the form `tables` when it may ask a phone number or an address). A quantities link charges
 * the total of the lines as picked.
 */
export function readPosted(
  link: PaymentLink,
  due: AmountDue | undefined,
  form: PostedForm | undefined,
  tables?: FormTables,
): PostedVisit {
  const chosen = due?.ok ? due.amount : undefined;
  const read = form && readAnswers(link, form, tables);
  if ((due && !due.ok) || read?.ok === false) return { refused: refusal(link, due, form, read) };
  if (!read) {
    return mayAskFirst(link) ? { amount: chosen, unanswered: true } : { amount: link.amount ?? chosen };
  }
  const answered = { answers: read.answers, lines: read.lines, asked: read.asked };
  return { amount: read.amount ?? link.amount ?? chosen, answered };
}

/**
 * Why routed connections cannot take the link's amount, from each provider's rules (`amountProblem`, no call
 * made), by connection id: such a connection is not asked, and that counts nothing against its health.
 */
export function amountProblems(
  amount: Amount,
  routed: readonly PspConnection[],
  psps: RulesOfProviders,
): Map<string, string> {
  const problems = new Map<string, string>();
  for (const connection of routed) {
    const problem = amountProblem(psps.rules(connection.provider).amounts, amount, 'payment');
    if (problem) problems.set(connection.id, problem);
  }
  return problems;
}
