import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { withLambdaContext } from '../logger.ts';

/**
 * Wraps an SQS consumer: each record is handled on its own, concurrently, and the ones that throw are reported
 * as `batchItemFailures` (the event source mapping has `reportBatchItemFailures`), so only they come back.
 * Never fails the whole invocation for a failed record, even when all of them failed.
 */
export function sqsBatchHandler(handleRecord: (record: SQSRecord) => Promise<unknown>) {
  return withLambdaContext(async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    const processor = new BatchProcessor(EventType.SQS);
    return processPartialResponse(event, handleRecord, processor, {
      context,
      throwOnFullBatchFailure: false,
    });
  });
}
