/** An error whose message is meant for the person at the terminal, printed without a stack. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}
