// Package persistence keeps everything the bot must not lose in Redis:
// game sessions with atomic moves, turn deadlines, the training corpus,
// ratings and stats, the model registry and locks. One Store, built from a
// redis.UniversalClient, serves a single node, Sentinel or Cluster alike:
// every key is built in keys.go under one prefix, and the keys that change
// together share a hash tag, so multi-key updates stay atomic in Cluster.
//
// Errors are this package's sentinels (ErrNotFound, ErrConflict, ...);
// redis.Nil never leaks out.
package persistence
