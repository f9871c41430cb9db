// What the bus and the permission layer of a group agree on: the event types the stream's
// script indexes, and how a command is retried while Redis is away.
import * as Schedule from "effect/Schedule"

export const ASKED = "permission.asked"
export const REPLIED = "permission.replied"
export const WITHDRAWN = "permission.withdrawn"
export const SESSION_CREATED = "session.created"

/** Retries every 200 ms, for as long as it takes (the caller's scope bounds it). */
export const retrySchedule = Schedule.spaced("200 millis")
