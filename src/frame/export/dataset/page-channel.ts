// A hand-over of pages from one producer to one consumer, one page at a time: `push` resolves
// once the consumer has taken the page, so a fast walk never piles pages up in front of a slow
// writer. The hive-partitioned export routes each page's records to one channel per value, and
// each channel is read by an unchanged Parquet writer.

import { OutputError } from "../../../errors";

type Waiter<T> = { resolve: (value: T) => void; reject: (error: unknown) => void };

/** Pages from a router to one writer; the writer reads it as an async iterable. */
export class PageChannel<T> implements AsyncIterable<T> {
  private queued: { page: T } | undefined;
  private giver: Waiter<void> | undefined;
  private taker: Waiter<IteratorResult<T>> | undefined;
  private ended = false;
  private failure: { error: unknown } | undefined;

  /** Hands a page over; resolves when the consumer has taken it, rejects when the channel failed. */
  push(page: T): Promise<void> {
    if (this.failure) return Promise.reject(this.failure.error);
    if (this.taker) {
      const taker = this.taker;
      this.taker = undefined;
      taker.resolve({ value: page, done: false });
      return Promise.resolve();
    }
    this.queued = { page };
    return new Promise((resolve, reject) => (this.giver = { resolve, reject }));
  }

  /** No more pages: the consumer's loop ends after the last one. */
  end(): void {
    this.ended = true;
    this.taker?.resolve({ value: undefined, done: true });
    this.taker = undefined;
  }

  /** Fails both sides: the consumer's next read and the producer's waiting or next push throw `error`. */
  fail(error: unknown): void {
    this.failure ??= { error };
    this.taker?.reject(error);
    this.giver?.reject(error);
    this.taker = this.giver = undefined;
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        if (this.queued) {
          const { page } = this.queued;
          this.queued = undefined;
          this.giver?.resolve();
          this.giver = undefined;
          return Promise.resolve({ value: page, done: false });
        }
        if (this.failure) return Promise.reject(this.failure.error);
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => (this.taker = { resolve, reject }));
      },
      // A consumer that stops early (its writer failed) fails the producer's pushes.
      return: () => {
        this.fail(new OutputError("The partition's writer stopped before it took every page."));
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
