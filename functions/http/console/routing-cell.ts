import type { PageLanguage } from '../../domain/locale.ts';
import type { RoutingDecision } from '../../domain/routing-decision.ts';
import type { CandidateEstimate } from '../../domain/strategies.ts';
import { type Html, html } from '../html.ts';
import { type ConsoleMessages, consoleMessages } from './messages.ts';

type Words = ConsoleMessages['link'];

function candidateLine(
  candidate: CandidateEstimate,
  decision: RoutingDecision,
  words: Words,
  language: PageLanguage,
): string {
  const percent = new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: 1 });
  const fee = new Intl.NumberFormat(language, { style: 'currency', currency: decision.segment.currency });
  return [
    candidate.connection,
    candidate.paid_share === null
      ? words.noEvidence
      : words.candidateEvidence(percent.format(candidate.paid_share), candidate.sessions),
    candidate.expected_fee === null ? undefined : words.expectedFee(fee.format(candidate.expected_fee)),
    candidate.eliminated ? words.eliminated : undefined,
    candidate.connection === decision.chosen ? words.chosen : undefined,
  ]
    .filter((part) => part !== undefined)
    .join(', ');
}

/**
 * A payment's routing decision as its link's page shows it (docs/orchestration.md#reading-a-decision): the
 * strategy and rule, then what the decision knew of each candidate, folded away until asked for.
 */
export function routingCell(
  decision: RoutingDecision | null | undefined,
  language: PageLanguage,
): Html | string {
  if (!decision) return '–';
  const words = consoleMessages(language).link;
  const summary = [
    decision.strategy,
    decision.rule ? words.rule(decision.rule) : undefined,
    decision.exploration ? words.routingNotes.exploration : undefined,
    decision.recovery ? words.routingNotes.recovery : undefined,
    decision.holdout ? words.routingNotes.holdout : undefined,
  ]
    .filter((part) => part !== undefined)
    .join(', ');
  if (decision.candidates.length === 0) return summary;
  return html`${summary}<details><summary>${words.candidates(decision.candidates.length)}</summary><ul>${decision.candidates.map(
    (candidate) => html`<li>${candidateLine(candidate, decision, words, language)}</li>`,
  )}</ul></details>`;
}
