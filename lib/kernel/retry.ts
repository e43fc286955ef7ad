/**
 * The one retry of the optimistic-concurrency writes (users' and surveys' PATCH, a survey's
 * content, a survey's version change): a write conditioned on what was read matches nothing when
 * another request wrote in between, and is then read and tried again (docs/architecture.md#repositories-speak-in-intentions).
 */

/** How many times a raced write is tried before the request is answered `409`. */
export const RACE_ATTEMPTS = 20;

/**
 * Runs `attempt` until it answers something other than `null` (the write applied), at most
 * {@link RACE_ATTEMPTS} times; `null` when every attempt lost its race. Before each new attempt
 * it waits a random moment that grows with the attempts made (up to 5 ms per attempt), so that
 * requests racing over one record spread out instead of colliding again. An error ends it at once.
 */
export async function retryWhileRaced<T>(attempt: (number: number) => Promise<T | null>): Promise<T | null> {
  for (let number = 0; number < RACE_ATTEMPTS; number++) {
    if (number > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * number));
    const result = await attempt(number);
    if (result !== null) return result;
  }
  return null;
}
