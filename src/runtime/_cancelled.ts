/**
 * What a call is told when its run is cancelled.
 *
 * @module
 */

/** The output a call gets when the run is cancelled while or before it runs. */
export function cancelledOutput(name: string, running: boolean): string {
  return running
    ? `Cancelled: the run was cancelled while ${name} was running; it did not finish.`
    : `Cancelled: the run was cancelled before this ${name} call ran; it did not run.`;
}
