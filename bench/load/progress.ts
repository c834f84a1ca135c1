import { printError, printStatus } from '../../src-main/printable';

const WIDTH = 28;

/**
 * A progress bar on stderr (stdout stays clean for --json): redrawn in place on a terminal,
 * one line per tenth otherwise (CI logs).
 */
export class ProgressBar {
  private numDone = 0;
  private lastTenth = -1;
  private readonly isTty = Boolean(process.stderr.isTTY);

  constructor(
    private readonly label: string,
    private readonly numTotal: number,
  ) {}

  /** One more request finished; `note` is a short status (ok / rejected counts). */
  tick(note: string): void {
    this.numDone++;
    const filled = Math.round((this.numDone / Math.max(1, this.numTotal)) * WIDTH);
    const line = `[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${this.numDone}/${this.numTotal} ${this.label}  ${note}`;
    if (this.isTty) return void printStatus(line, 100);
    const tenth = Math.floor((this.numDone / Math.max(1, this.numTotal)) * 10);
    if (tenth !== this.lastTenth) printStatus(line, 100);
    this.lastTenth = tenth;
  }

  /** Ends the bar's line. */
  done(): void {
    if (this.isTty) printError('');
  }
}
