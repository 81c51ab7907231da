import { UndecodableItemError } from '../../functions/adapters/dynamodb/item-decoder.ts';

/** The error a mapper throws for `item`. */
export function refusal(read: () => unknown): UndecodableItemError {
  try {
    read();
  } catch (error) {
    if (error instanceof UndecodableItemError) return error;
    throw error;
  }
  throw new Error('decoded');
}
