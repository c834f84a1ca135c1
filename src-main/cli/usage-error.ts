/** A command line that cannot be run as given; the message says what to change (exit 2 with the usage). */
export class UsageError extends Error {
  override name = 'UsageError';
}
