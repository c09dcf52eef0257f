// What a history's local activity marker says: Core records a local activity's type, id and
// result in a marker, not its input (the harness keeps local bursts' inputs: localBurstInputs).
import { defaultPayloadConverter } from '@temporalio/common';

type Payload = Parameters<typeof defaultPayloadConverter.fromPayload>[0];

interface MarkerEvent {
  markerRecordedEventAttributes?: { markerName?: string | null; details?: Record<string, { payloads?: unknown[] | null }> | null } | null;
}

/** A local activity's marker: its type, its id in the run, and its result; undefined for any other event. */
export function localActivityOf(event: MarkerEvent): { type: string; activityId: string; result: Payload | undefined } | undefined {
  const marker = event.markerRecordedEventAttributes;
  const data = marker?.markerName === 'core_local_activity' ? marker.details?.['data']?.payloads?.[0] : undefined;
  if (data === undefined) return undefined;
  const decoded = defaultPayloadConverter.fromPayload<{ activity_type: string; activity_id: string }>(data as Payload);
  return { type: decoded.activity_type, activityId: decoded.activity_id, result: marker?.details?.['result']?.payloads?.[0] as Payload | undefined };
}
