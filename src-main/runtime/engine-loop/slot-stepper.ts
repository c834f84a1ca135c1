import type { FinishReason } from '../../telemetry/timeline/schema';
import type { StepJob, SteppedReply } from '../slot-worker/protocol';
import { plainOrtError } from '../slot-worker/ort-error';
import { markStep } from '../slot-worker/step-trace';
import type { Log } from '../../telemetry/log/log';
import type { SlotRegistry } from '../slots/slot-registry';
import type { Slot } from '../slots/slot';
import type { Scheduler } from '../scheduler/scheduler';
import type { Sequence } from '../scheduler/sequence';
import type { StepPlan } from '../scheduler/step-plan';
import type { DropQueue } from './drop-queue';
import type { RememberedSeats } from './remembered-seats';
import { burstStepsOf, nextPaceOf } from './decode-burst';
import type { StepDispatcher } from './step-dispatch';
import { decodesOf } from './step-dispatch';

/** What the stepper needs from the engine loop. */
export interface StepperHost {
  scheduler: Scheduler;
  registry: SlotRegistry;
  dispatcher: StepDispatcher;
  drops: DropQueue;
  seats: RememberedSeats;
  finish(seq: Sequence, reason: FinishReason, errorMessage: string | null): void;
  /** Runs a whole loop iteration (inbox, deadlines, every slot). */
  iterate(): void;
  /** Hears ONNX Runtime's raw text when a step fails (the user reads a sentence). */
  log: Log;
}

/**
 * Sends each idle slot its next step: one job in flight per slot, the next one planned as
 * soon as the reply is applied; an idle slot without work frees finished K/V or, retiring,
 * closes.
 */
export class SlotStepper {
  /** Each slot's plan in flight, and whether its burst was cut already. */
  private readonly inFlight = new Map<string, { plan: StepPlan; isCut: boolean }>();
  /** Each slot's smoothed decode forward time (ms), which sizes its bursts (decode-burst.ts). */
  private readonly decodeStepMs = new Map<string, number>();

  constructor(private readonly host: StepperHost) {}

  /** True while any step is running in a worker. */
  get isStepping(): boolean {
    return this.inFlight.size > 0;
  }

  /** The slot's worker died: its step in flight will never be answered. */
  forget(slotId: string): void {
    this.inFlight.delete(slotId);
    this.decodeStepMs.delete(slotId);
  }

  /** Gives an idle slot its next step, frees its finished K/V later, or closes it when retired. */
  step(slot: Slot): void {
    if (!this.isIdle(slot)) return this.cutBurstIfWanted(slot);
    if (!this.host.scheduler.hasWork(slot)) {
      // A replaced revision's slot closes once its last sequence is done (drained).
      if (slot.isRetiring) return void this.host.registry.closeRetired(slot);
      if (this.host.seats.has(slot.slotId)) return this.dispatchStep(slot);
      return this.dropLater(slot);
    }
    this.dispatchStep(slot);
  }

  /** True when the slot has a runner and no step in flight: its next job may be sent. */
  private isIdle(slot: Slot): boolean {
    return !this.inFlight.has(slot.slotId) && slot.runner !== null && !slot.runner.isBusy;
  }

  /** Plans the slot's next step and sends it to the worker, if there is anything to send. */
  private dispatchStep(slot: Slot): void {
    const maxDecodeSteps = burstStepsOf(this.decodeStepMs.get(slot.slotId) ?? null);
    const plan = this.host.scheduler.planStep(slot, (other) => this.isIdle(other), maxDecodeSteps);
    const job = this.host.dispatcher.buildJob(slot, plan);
    if (job) this.dispatch(slot, plan, job);
  }

  /**
   * A decode burst in flight ends after its current step once someone waits for the slot or
   * one of its rows has ended (cancelled, past its deadline): a new request's prefill waits one
   * step, not a burst, and an ended row wastes no more steps.
   */
  private cutBurstIfWanted(slot: Slot): void {
    const inFlight = this.inFlight.get(slot.slotId);
    if (!inFlight || inFlight.isCut || inFlight.plan.numDecodeSteps <= 1) return;
    const { scheduler } = this.host;
    const hasRowEnded = inFlight.plan.decodeRows.some((seq) => !scheduler.isLive(seq));
    if (!hasRowEnded && !scheduler.hasWaiting(slot)) return;
    inFlight.isCut = true;
    slot.runner?.cutBurst?.();
  }

  private dispatch(slot: Slot, plan: StepPlan, job: StepJob): void {
    if (!slot.runner) return;
    this.inFlight.set(slot.slotId, { plan, isCut: false });
    slot.runner
      .step(job)
      .then((reply) => {
        this.host.dispatcher.workerReplied(slot);
        if (reply.kvBytes !== undefined) slot.kvBufferBytes = reply.kvBytes;
        this.notePace(slot, reply);
        this.host.dispatcher.applyReply(plan, reply);
        markStep('replyApplied');
      })
      .catch((error: Error) => this.failPlan(plan, error))
      .finally(() => {
        this.inFlight.delete(slot.slotId);
        if (job.seat) this.host.seats.settled(job.seat.seqId);
        // Plan this slot's next step at once: a hop through the event loop would add to every
        // inter-token gap. Other slots and the inbox are served in the same pass.
        this.host.iterate();
      });
  }

  /** Folds the reply's decode forward times into the slot's pace. */
  private notePace(slot: Slot, reply: SteppedReply): void {
    const pace = nextPaceOf(this.decodeStepMs.get(slot.slotId) ?? null, decodesOf(reply));
    if (pace !== null) this.decodeStepMs.set(slot.slotId, pace);
  }

  /** An idle slot frees finished sequences' K/V in a job of its own after a quiet spell. */
  private dropLater(slot: Slot): void {
    this.host.drops.flushLater(slot.slotId, () =>
      this.isIdle(slot) ? this.dispatchStep(slot) : this.dropLater(slot),
    );
  }

  /** Ends the plan's sequences with the step's error; ONNX Runtime's own text goes to the log. */
  private failPlan(plan: StepPlan, error: Error): void {
    const reason = plainOrtError(error.message);
    if (reason !== error.message)
      this.host.log.warn('engine', `a step failed; ONNX Runtime said: ${error.message}`);
    const seqs = [...(plan.prefill ? [plan.prefill.seq] : []), ...plan.decodeRows];
    for (const seq of seqs)
      if (this.host.scheduler.isLive(seq)) this.host.finish(seq, 'error', `step failed: ${reason}`);
  }
}
