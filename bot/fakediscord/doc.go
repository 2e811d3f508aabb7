// Package fakediscord is an in-process fake of the parts of Discord a bot
// uses, for end-to-end tests, in the spirit of net/http/httptest.
//
// A Server listens on loopback and speaks Discord's REST API (API v9/v10
// paths), its gateway WebSocket protocol (HELLO, IDENTIFY, READY, heartbeats,
// RESUME, dispatches with sequence numbers) and the outgoing side of HTTP
// interactions (Ed25519-signed POSTs to the bot's endpoint).
//
// A bot built on github.com/bwmarrin/discordgo is pointed at the fake without
// touching discordgo's package-level endpoint variables: set session.Client to
// (*Server).Client(), whose transport sends every request for discord.com,
// discordapp.com and their CDN hosts to the fake. The gateway address then
// comes from the fake's own GET /gateway answer, so session.Open dials the
// fake with the session's ordinary WebSocket dialer.
//
// Tests act as Discord users with Click, Command, Autocomplete and
// SubmitModal, and read what users see with Messages, Visible and the
// Delivery returned for each interaction. The fake checks what the bot sends
// the way Discord does (authorization, JSON, component and length limits,
// one acknowledgement per interaction, the 3 second acknowledgement window,
// webhook token lifetime) and answers with Discord-shaped error bodies.
// Files the bot uploads with a message or an edit (multipart bodies, as
// discordgo sends File values) are recorded as Message.Attachments, with
// their names, content types and bytes, and served at their CDN addresses.
//
// GET /applications/@me answers the token's application (its ID and its
// public key as verify_key). For start-up failures a test can make the fake
// unreachable (SetUnreachable: connections are dropped unanswered) or make
// the gateway refuse IDENTIFY with a close code (FailIdentify, e.g. 4004
// for a rejected token); a wrong token already gets 401 from REST. Fail
// injects the faults Discord's API shows now and then into the next N (or
// a seeded share of the) REST calls of a method and path: a 5xx with an
// HTML body, a connection reset before or after the request is applied, a
// slow answer, a 429 with Discord's body and rate-limit headers (per route
// or global), or a seeded mix of these; Outage fails every REST call until
// it is ended. A channel post with a nonce and enforce_nonce returns the
// first message posted with that nonce in the channel within 5 minutes.
// With Options.History the fake keeps every state each message was shown
// in (History), for tests of what a user saw when.
package fakediscord
