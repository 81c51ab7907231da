/** Runs `task` over `items`, at most `concurrency` at a time, each worker taking the next item as it finishes one. */
export async function inParallel<T>(
  items: readonly T[],
  concurrency: number,
  task: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++] as T);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
