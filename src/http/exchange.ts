import type { IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';

/** The response head as undici parsed it (lower-case names; repeated headers as arrays). */
export interface ExchangeHead {
  status: number;
  headers: IncomingHttpHeaders;
}

export interface ExchangeHooks {
  /** The request is about to be written on a connected socket (a new or a reused one). */
  onConnected(): void;
}

/** Bytes buffered between undici and the body reader before undici is paused. */
const BODY_HIGH_WATER_MARK_BYTES = 64 * 1024;

/**
 * One request/response through undici, as a promise for the head and a Readable for the body
 * with backpressure (a full buffer pauses the socket). `fail(reason)` ends it from outside at any
 * stage: before the socket exists, while waiting for the head, or mid-body, and destroys the
 * socket when one is in use so it is never reused. Whoever fails first names the failure.
 */
export class Exchange implements Dispatcher.DispatchHandler {
  readonly head: Promise<ExchangeHead>;
  /** Rejects with the first failure reason; never resolves. Race work against it so nothing outlives a failure. */
  readonly failed: Promise<never>;
  private rejectFailed!: (reason: unknown) => void;
  private resolveHead!: (head: ExchangeHead) => void;
  private rejectHead!: (reason: unknown) => void;
  private headSettled = false;
  private controller: Dispatcher.DispatchController | undefined;
  private socket: Socket | undefined;
  private bodyStream: Readable | undefined;
  private complete = false;
  private failure: Error | undefined;

  constructor(private readonly hooks: ExchangeHooks) {
    this.head = new Promise<ExchangeHead>((resolve, reject) => {
      this.resolveHead = resolve;
      this.rejectHead = reject;
    });
    this.failed = new Promise<never>((_resolve, reject) => {
      this.rejectFailed = reject;
    });
    // A failure before anyone awaits these must not surface as an unhandled rejection.
    this.head.catch(() => undefined);
    this.failed.catch(() => undefined);
  }

  /** The body; defined once the head has resolved. */
  get body(): Readable {
    if (this.bodyStream === undefined) throw new Error('Exchange.body read before the response head arrived');
    return this.bodyStream;
  }

  /**
   * Ends the exchange with `reason`; the first reason wins. Also stops a body that has fully
   * arrived but is still being read, so a deadline or a cancellation holds while a sink is slow.
   */
  fail(reason: Error): void {
    if (this.failure !== undefined) return;
    this.failure = reason;
    this.detachSocketListener();
    this.rejectFailed(reason);
    if (!this.headSettled) {
      this.headSettled = true;
      this.rejectHead(reason);
    }
    if (this.bodyStream !== undefined && !this.bodyStream.destroyed) this.bodyStream.destroy(reason);
    this.abortRequest(reason);
  }

  /** The socket the request went out on (from socket-facts), so a failure can close exactly it. */
  attachSocket(socket: Socket): void {
    this.socket = socket;
    // Before undici's own 'end' listener: it asserts its parser is not paused, and a server that
    // closes after the body (HTTP/1.0 style) while our reader lags crashed the process
    // (nodejs/undici#5360, fixed in undici 8 only). Every byte has arrived by then, so the
    // parser is resumed and no longer paused: backpressure has nothing left to hold back.
    socket.prependOnceListener('end', this.onSocketEnd);
  }

  private socketEnded = false;

  private readonly onSocketEnd = (): void => {
    this.socketEnded = true;
    if (!this.complete && this.failure === undefined) this.controller?.resume();
  };

  /** A reused socket outlives this exchange: its listener must not. */
  private detachSocketListener(): void {
    this.socket?.removeListener('end', this.onSocketEnd);
  }

  private abortRequest(reason: Error): void {
    if (this.complete) return;
    // Destroying the socket with our own reason first matters: undici's abort closes it with an
    // informational error, after which it reconnects to the host just to drop the aborted request.
    if (this.socket !== undefined && !this.socket.destroyed) this.socket.destroy(reason);
    if (this.controller !== undefined && !this.controller.aborted) this.controller.abort(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.failure !== undefined) {
      controller.abort(this.failure);
      return;
    }
    this.hooks.onConnected();
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    if (statusCode < 200) return; // 1xx informational: the real head follows.
    if (this.failure !== undefined) {
      controller.abort(this.failure);
      return;
    }
    this.bodyStream = new Readable({
      highWaterMark: BODY_HIGH_WATER_MARK_BYTES,
      read: () => controller.resume(),
      destroy: (error, callback) => {
        // The reader gave up (limit, sink error, deadline): tear the request and its socket down.
        this.abortRequest(error ?? new Error('response body destroyed before its end'));
        callback(error);
      },
    });
    // Its errors reach whoever reads it; unread (a refused Content-Length), they must not crash the process.
    this.bodyStream.on('error', () => undefined);
    this.headSettled = true;
    this.resolveHead({ status: statusCode, headers });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    const body = this.bodyStream;
    if (body === undefined || body.destroyed) return;
    if (!body.push(chunk) && !this.socketEnded) controller.pause();
  }

  onResponseEnd(): void {
    this.complete = true;
    this.detachSocketListener();
    this.bodyStream?.push(null);
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.detachSocketListener();
    const reason = this.failure ?? error;
    if (this.failure === undefined) this.rejectFailed(reason);
    this.failure = reason;
    if (!this.headSettled) {
      this.headSettled = true;
      this.rejectHead(reason);
      return;
    }
    if (this.bodyStream !== undefined && !this.bodyStream.destroyed) this.bodyStream.destroy(reason);
  }
}
